// Lexer for slurm.conf and the files that share its parser (topology.conf, gres.conf,
// included fragments). It mirrors Slurm's s_p_* reader (see shared/reference/formats.md §1):
//  - '#' starts a comment unless escaped as '\#'; quotes do NOT protect it, so a quoted
//    value that contains '#' stops matching as QUOTED and falls back to a bare word, as in
//    Slurm.
//  - a backslash at the end of a line (after optional blanks and an optional comment)
//    joins the next line with no separator; inside a key or value the continuation is kept
//    in the token text and removed by the analyzer, so positions stay exact.
//  - after '=', one value: a double-quoted string or a run of non-blank characters that may
//    contain '=' or stray quotes. An unquoted empty value swallows the next token, exactly
//    like Slurm's regular expression does.
// The lexer is deliberately forgiving; Slurm's acceptance rules live in the analyzer.
lexer grammar SlurmConfLexer;

// 'Include' only counts in column 1 and must be followed by blanks and a file name, so it is
// recognised together with the line end before it (the reader prepends a '\n' to the file
// so the first line works too). A semantic predicate on the column would do the same but
// stops ANTLR caching the lexer's start state, which made lexing ten times slower.
INCLUDE_LINE : INCLUDE_START -> pushMode(INCLUDE_MODE) ;

KEY     : KEY_CHAR (KEY_CHAR | CONT)* ;
OP      : [+\-*/] ;
EQ      : '=' -> pushMode(VALUE_MODE) ;
NEWLINE : '\r'? '\n' ;
CONTINUATION : CONT -> skip ;
COMMENT : '#' ~[\r\n]* -> skip ;
WS      : [ \t\r\f]+ -> skip ;
// Anything else is reported as a syntax error by the parser, not dropped by the lexer.
OTHER   : . ;

fragment KEY_CHAR : [A-Za-z0-9_.] ;
fragment INCLUDE_START : '\r'? '\n' [Ii][Nn][Cc][Ll][Uu][Dd][Ee] [ \t]+ ;
// An odd backslash at the end of the (comment-stripped, right-trimmed) line.
fragment CONT     : '\\' ([ \t\f]+ ('#' ~[\r\n]*)? | '\r')* '\r'? '\n' ;
fragment ESC      : '\\' ~[\r\n] ;

mode VALUE_MODE;
V_WS      : [ \t\f\r]+ -> skip ;
V_CONT    : CONT -> skip ;
// No escape can put a '"' inside quotes (Slurm removes escapes before matching quotes).
QUOTED    : '"' (~["\\#\r\n] | '\\' ~["\r\n] | CONT)* '"' -> popMode ;
WORD      : (~[ \t\f\r\n#\\] | ESC | CONT)+ -> popMode ;
V_COMMENT : '#' ~[\r\n]* -> skip ;
V_NEWLINE : '\r'? '\n' -> type(NEWLINE), popMode ;
V_INCLUDE_LINE : INCLUDE_START -> type(INCLUDE_LINE), mode(INCLUDE_MODE) ;

mode INCLUDE_MODE;
I_PATH    : (~[ \t\f\r\n#\\] | ESC)+ ;
I_WS      : [ \t\f]+ -> skip ;
I_COMMENT : '#' ~[\r\n]* -> skip ;
I_OTHER   : ~[\r\n] ;
I_NEWLINE : '\r'? '\n' -> type(NEWLINE), popMode ;
I_INCLUDE_LINE : INCLUDE_START -> type(INCLUDE_LINE) ;
