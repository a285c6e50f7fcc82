
BoutputJ(ì64:(R¹<=OE:$n72s<ú<uP;JV!>	Ë‡<Õ@?