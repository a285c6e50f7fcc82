
BoutputJ(5yя=Vn>┬Л<U9y<<jO;OL=░UЗ>rбн=~L_>х╬;