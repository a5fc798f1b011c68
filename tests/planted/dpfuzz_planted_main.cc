// dpfuzz with the planted and correct ops added: the binary the isolation
// tests fuzz (its workers are this binary too, so they know the ops).

#include "fuzz/main_entry.h"
#include "generators/op_registry.h"
#include "tests/planted/correct_specs.h"
#include "tests/planted/planted_specs.h"

int main(int argc, char** argv) {
  dpfuzz::AddOps(dpfuzz::AllPlantedSpecs());
  dpfuzz::AddOps(dpfuzz::CorrectOps());
  dpfuzz::AddCorrectOpRules();
  return dpfuzz::DpfuzzMain(argc, argv);
}
