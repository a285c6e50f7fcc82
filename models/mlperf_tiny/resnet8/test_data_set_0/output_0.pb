
BoutputJ(ˆíO9C=™>‹+G:Rÿp;F˜9v)?û[Ú<¥(º9Fd”;Ü„;