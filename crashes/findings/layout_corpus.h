// LayoutCorpus: the cases of a campaign that reached new layout coverage,
// kept in a directory of plain files (dpfuzz --corpus=DIR).
//
//   DIR/<op>-<hash>.json    a case file (generators/case_json.h) that reached
//                           a layout-coverage cell (oracles/layout_coverage.h)
//                           no case before it had reached;
//   DIR/cells/<pid>.cells   the cells a worker process reached first, one
//                           ToString() per line, appended as it goes (a
//                           worker that dies keeps what it wrote);
//   DIR/coverage.cells      the cells of earlier runs, merged (MergeCells).
//
// Each worker opens the corpus, so it knows every cell of earlier runs and
// of the workers that ran before it started, and adds what it reaches; two
// workers running at once may both keep a case for the same new cell,
// never none. The campaign starts from the cases kept: it mutates them
// (generators/case_mutator.h), so that coverage guides what it draws, and
// merges the cells when it ends. Files are written atomically or appended
// line by line: a campaign killed at any moment leaves a corpus it resumes
// from.
//
//   absl::StatusOr<LayoutCorpus> corpus = LayoutCorpus::Open("corpus");
//   corpus->Add(c, Verdict::kAgree);  // keeps c when a cell is new
//   std::vector<std::string> files = CorpusCaseFiles("corpus");

#ifndef DPFUZZ_CRASHES_FINDINGS_LAYOUT_CORPUS_H_
#define DPFUZZ_CRASHES_FINDINGS_LAYOUT_CORPUS_H_

#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "generators/case.h"
#include "oracles/verdict.h"

namespace dpfuzz {

class LayoutCorpus {
 public:
  // Creates DIR (and DIR/cells) when needed and reads the cells so far.
  static absl::StatusOr<LayoutCorpus> Open(const std::string& dir);

  // Records the cells `c` reached with `verdict`; when one is new, keeps
  // `c` as a case file. Returns how many cells were new.
  absl::StatusOr<int> Add(const Case& c, Verdict verdict);

  size_t cells() const { return seen_.size(); }

 private:
  explicit LayoutCorpus(std::string dir) : dir_(std::move(dir)) {}

  std::string dir_;
  std::set<uint64_t> seen_;         // Cell hashes.
  std::shared_ptr<std::FILE> log_;  // DIR/cells/<pid>.cells, once opened.
};

// The case files of the corpus in `dir`, sorted; none when there is none.
std::vector<std::string> CorpusCaseFiles(const std::string& dir);

// Every cell reached so far (coverage.cells and the workers' files).
std::set<std::string> ReadCorpusCells(const std::string& dir);

// Folds the workers' cell files into coverage.cells (sorted, each cell
// once), atomically, then removes them.
absl::Status MergeCells(const std::string& dir);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_FINDINGS_LAYOUT_CORPUS_H_
