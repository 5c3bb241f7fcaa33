// Parser for `sacctmgr dump` files, one logical line at a time (as for slurm.conf, so that
// one bad line is one diagnostic). Which titles and options exist, and what they mean, is
// checked by analyzer/assoc_reader.cpp.
parser grammar SacctmgrDumpParser;

options { tokenVocab = SacctmgrDumpLexer; }

line   : record? eol ;
record : title DASH field (COLON field)* COLON? ;
title  : TITLE_WORD+ ;
field  : piece+ ;
piece  : SQUOTED | DQUOTED | TEXT | EQ ;
eol    : NEWLINE | EOF ;
