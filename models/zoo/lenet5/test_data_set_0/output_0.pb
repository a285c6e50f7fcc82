
BoutputJ(*úz?^F>@fÝr@š6g?Æ.@rÔ¿T¶5¿ÆÒ¯Àe­|@y„®>