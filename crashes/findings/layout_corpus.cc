#include "crashes/findings/layout_corpus.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/files.h"
#include "common/status_macros.h"
#include "generators/case_json.h"
#include "oracles/layout_coverage.h"

namespace dpfuzz {
namespace {

namespace fs = std::filesystem;

constexpr char kCellsDir[] = "cells";
constexpr char kMergedCells[] = "coverage.cells";

void ReadLines(const fs::path& path, std::set<std::string>& into) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) into.insert(line);
  }
}

std::vector<fs::path> WorkerCellFiles(const std::string& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(dir) / kCellsDir, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".cells") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// "aten::add.Tensor" -> "aten__add.Tensor": a file name.
std::string FileStem(const std::string& op) {
  std::string stem = op;
  for (char& ch : stem) {
    if (ch == ':' || ch == '/') ch = '_';
  }
  return stem;
}

}  // namespace

absl::StatusOr<LayoutCorpus> LayoutCorpus::Open(const std::string& dir) {
  DPFUZZ_RETURN_IF_ERROR(
      MakeDirectories((fs::path(dir) / kCellsDir).string(), "corpus"));
  LayoutCorpus corpus(dir);
  for (const std::string& cell : ReadCorpusCells(dir)) {
    corpus.seen_.insert(CellHash(cell));
  }
  return corpus;
}

absl::StatusOr<int> LayoutCorpus::Add(const Case& c, Verdict verdict) {
  std::vector<std::string> fresh;
  for (const LayoutCell& cell : LayoutCellsOf(c, verdict)) {
    if (seen_.insert(cell.Hash()).second) fresh.push_back(cell.ToString());
  }
  if (fresh.empty()) return 0;
  const std::string text = CaseToJson(c);
  const std::string path = absl::StrFormat(
      "%s/%s-%016x.json", dir_, FileStem(QualifiedOpName(c)), CellHash(text));
  // The case first: cells written are cells whose case is kept.
  DPFUZZ_RETURN_IF_ERROR(WriteFileAtomically(path, text, "corpus case"));
  if (log_ == nullptr) {
    const std::string cells =
        absl::StrCat(dir_, "/", kCellsDir, "/", ::getpid(), ".cells");
    std::FILE* f = std::fopen(cells.c_str(), "a");
    if (f == nullptr) {
      return absl::InternalError(
          absl::StrCat("corpus: cannot append to ", cells));
    }
    log_.reset(f, std::fclose);
  }
  const std::string lines = absl::StrCat(absl::StrJoin(fresh, "\n"), "\n");
  std::fwrite(lines.data(), 1, lines.size(), log_.get());
  std::fflush(log_.get());
  return static_cast<int>(fresh.size());
}

std::vector<std::string> CorpusCaseFiles(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (absl::EndsWith(name, ".json") && !absl::StartsWith(name, ".")) {
      files.push_back(it->path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::set<std::string> ReadCorpusCells(const std::string& dir) {
  std::set<std::string> cells;
  ReadLines(fs::path(dir) / kMergedCells, cells);
  for (const fs::path& file : WorkerCellFiles(dir)) ReadLines(file, cells);
  return cells;
}

absl::Status MergeCells(const std::string& dir) {
  const std::vector<fs::path> parts = WorkerCellFiles(dir);
  if (parts.empty()) return absl::OkStatus();
  const std::set<std::string> cells = ReadCorpusCells(dir);
  DPFUZZ_RETURN_IF_ERROR(WriteFileAtomically(
      (fs::path(dir) / kMergedCells).string(),
      absl::StrCat(absl::StrJoin(cells, "\n"), "\n"), "corpus cells"));
  std::error_code ec;
  for (const fs::path& part : parts) fs::remove(part, ec);
  return absl::OkStatus();
}

}  // namespace dpfuzz
