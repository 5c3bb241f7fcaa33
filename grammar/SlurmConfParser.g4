// Parser for the slurm.conf family. The analyzer drives it one logical line at a time
// (rule `line`), so that one malformed line yields one diagnostic and the rest of the file
// is still read, as an admin expects from a linter. Continuations were already folded by
// the lexer. Which keys may share a line, which keys exist and what values mean is the
// analyzer's business (analyzer/conf_reader.cpp).
parser grammar SlurmConfParser;

options { tokenVocab = SlurmConfLexer; }

line    : (include | pair+)? eol ;
include : I_PATH I_OTHER* ;   // follows an INCLUDE_LINE token, which ended the previous line
pair    : KEY OP? EQ value ;
value   : QUOTED | WORD ;
eol     : NEWLINE | INCLUDE_LINE | EOF ;
