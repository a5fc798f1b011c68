// dpfuzz: see fuzz/main_entry.h.

#include "fuzz/main_entry.h"

int main(int argc, char** argv) { return dpfuzz::DpfuzzMain(argc, argv); }
