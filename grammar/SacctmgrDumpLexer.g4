// Lexer for `sacctmgr dump` files (the input of `sacctmgr load`). sacctmgr reads them with
// the same line rules as slurm.conf (comments, '\#', continuation, escapes; see
// shared/reference/formats.md §5.1). A record line is `Title - name[:Option=value]...`:
// the title is the text before the first '-', fields are separated by ':' outside single
// or double quotes, and option values may contain '=' (GrpTRES=cpu=512,mem=2T).
lexer grammar SacctmgrDumpLexer;

TITLE_WORD : [A-Za-z_]+ ;
DASH       : '-' -> pushMode(FIELDS) ;
NEWLINE    : '\r'? '\n' ;
CONTINUATION : CONT -> skip ;
COMMENT    : '#' ~[\r\n]* -> skip ;
WS         : [ \t\r\f]+ -> skip ;
OTHER      : . ;

fragment CONT : '\\' ([ \t\f]+ ('#' ~[\r\n]*)? | '\r')* '\r'? '\n' ;
fragment ESC  : '\\' ~[\r\n] ;

mode FIELDS;
SQUOTED   : '\'' (~['\r\n] | CONT)* '\'' ;
DQUOTED   : '"' (~["\r\n] | CONT)* '"' ;
COLON     : ':' ;
EQ        : '=' ;
TEXT      : (~[:'"= \t\f\r\n#\\] | ESC | CONT)+ ;
F_WS      : [ \t\f\r]+ -> skip ;
F_CONT    : CONT -> skip ;
F_COMMENT : '#' ~[\r\n]* -> skip ;
F_NEWLINE : '\r'? '\n' -> type(NEWLINE), popMode ;
