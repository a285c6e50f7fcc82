
BoutputJ(a””<jZ<q<>Åîˆ=/ õ>xI3=Ÿl<L‰¸<÷Íx=JçÐ=