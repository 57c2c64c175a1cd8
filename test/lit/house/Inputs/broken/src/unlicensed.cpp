// A source file without a license line, formatted as the committed .clang-format forbids.
int  badly_formatted( ) {return 0;}
