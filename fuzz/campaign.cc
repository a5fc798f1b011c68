#include "fuzz/campaign.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/torch_compat.h"
#include "crashes/findings_store.h"
#include "generators/rng.h"
#include "oracles/run_case.h"

namespace dpfuzz {
namespace {

using Clock = std::chrono::steady_clock;

// Campaigns stop drawing for an op after this many invalid draws in a row.
constexpr int kMaxInvalidInARow = 2000;

std::vector<DType> AllowedDTypes(const OpSpec& spec,
                                 const std::vector<DType>& allowed) {
  if (allowed.empty()) return spec.dtypes;
  std::vector<DType> out;
  for (DType d : spec.dtypes) {
    if (std::find(allowed.begin(), allowed.end(), d) != allowed.end())
      out.push_back(d);
  }
  return out;
}

void PrintProgress(const CampaignSummary& s, double elapsed) {
  std::fprintf(
      stderr,
      "\r[%5.0fs] cases %lld (%.0f/s)  findings %zu  hits %lld  invalid %lld ",
      elapsed, static_cast<long long>(s.cases),
      elapsed > 0 ? s.cases / elapsed : 0.0, s.findings.size(),
      static_cast<long long>(s.hits), static_cast<long long>(s.invalid));
  std::fflush(stderr);
}

}  // namespace

CampaignSummary RunCampaign(const CampaignOptions& options, std::ostream& log,
                            const std::atomic<bool>* stop) {
  CampaignSummary summary;
  compat::SilenceWarnings quiet;
  const Clock::time_point start = Clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  std::optional<FindingsStore> store;
  if (!options.findings_dir.empty()) {
    absl::StatusOr<FindingsStore> opened =
        FindingsStore::Open(options.findings_dir);
    if (!opened.ok()) {
      log << "ERROR: " << opened.status().message() << "\n";
      ++summary.errors;
      return summary;
    }
    store = *opened;
  }
  struct OpState {
    const OpSpec* spec;
    std::vector<DType> dtypes;
    std::vector<Variant> variants;
    int invalid_in_a_row = 0;
  };
  std::vector<OpState> ops;
  for (const OpSpec* spec : options.ops) {
    OpState state{spec, AllowedDTypes(*spec, options.dtypes),
                  VariantsOf(*spec)};
    if (state.dtypes.empty()) {
      log << "WARNING: " << spec->op
          << " accepts none of the requested dtypes; skipped\n";
      continue;
    }
    ops.push_back(state);
  }
  Rng rng(options.seed);
  Clock::time_point last_progress = start;
  size_t next = 0;
  while (!ops.empty()) {
    if (stop != nullptr && stop->load()) {
      summary.interrupted = true;
      break;
    }
    if (options.runs > 0 && summary.cases >= options.runs) break;
    if (options.max_time_seconds > 0 && elapsed() >= options.max_time_seconds)
      break;
    OpState& op = ops[next++ % ops.size()];
    const DType dtype = rng.Pick(op.dtypes);
    const Variant variant = rng.Pick(op.variants);
    const uint64_t seed = rng.Next();
    absl::StatusOr<std::optional<Case>> built =
        BuildCase(*op.spec, dtype, variant, seed, options.build);
    if (!built.ok()) {
      ++summary.errors;
      log << "ERROR: building a case for " << op.spec->op << " (seed " << seed
          << "): " << built.status().message() << "\n";
      continue;
    }
    if (!built->has_value()) {
      ++summary.invalid;
      if (++op.invalid_in_a_row == kMaxInvalidInARow) {
        log << "WARNING: " << op.spec->op << ": " << kMaxInvalidInARow
            << " drawn argument sets in a row were rejected by the op; "
               "dropping it from the campaign\n";
        ops.erase(ops.begin() + (&op - ops.data()));
      }
      continue;
    }
    op.invalid_in_a_row = 0;
    const Case& c = **built;
    absl::StatusOr<CaseOutcome> outcome = RunCase(*op.spec, c);
    if (!outcome.ok()) {
      ++summary.errors;
      log << "ERROR: running " << QualifiedOpName(c) << " (seed " << seed
          << "): " << outcome.status().message() << "\n";
      continue;
    }
    ++summary.cases;
    ++summary.verdicts[outcome->verdict];
    if (IsFinding(outcome->verdict)) {
      ++summary.hits;
      const Finding finding = MakeFinding(c, *outcome);
      std::string where = "(not stored)";
      if (store.has_value()) {
        absl::StatusOr<Recorded> recorded = store->Record(finding);
        if (recorded.ok()) {
          where = recorded->path;
        } else {
          ++summary.errors;
          log << "ERROR: " << recorded.status().message() << "\n";
        }
      }
      if (summary.findings.emplace(finding.signature, where).second) {
        if (options.progress) std::fprintf(stderr, "\n");
        log << "FINDING: " << VerdictName(outcome->verdict) << " "
            << QualifiedOpName(c) << " " << VariantName(c.variant) << " "
            << DTypeName(dtype) << " -> " << where << "\n  "
            << outcome->evidence.where << ": " << outcome->evidence.detail
            << (outcome->evidence.error.empty() ? "" : "\n  error: ")
            << outcome->evidence.error.substr(
                   0, outcome->evidence.error.find('\n'))
            << std::endl;
      }
    }
    if (options.progress &&
        std::chrono::duration<double>(Clock::now() - last_progress).count() >
            0.25) {
      last_progress = Clock::now();
      PrintProgress(summary, elapsed());
    }
  }
  summary.seconds = elapsed();
  if (options.progress) {
    PrintProgress(summary, summary.seconds);
    std::fprintf(stderr, "\n");
  }
  return summary;
}

std::string SummaryLine(const CampaignSummary& s) {
  std::string line = absl::StrFormat(
      "SUMMARY: cases=%d findings=%d hits=%d invalid=%d errors=%d seconds=%.1f",
      s.cases, s.findings.size(), s.hits, s.invalid, s.errors, s.seconds);
  for (const auto& [verdict, count] : s.verdicts) {
    absl::StrAppend(&line, " ", VerdictName(verdict), "=", count);
  }
  if (s.interrupted) absl::StrAppend(&line, " interrupted");
  return line;
}

std::string SummaryJson(const CampaignSummary& s) {
  nlohmann::json verdicts = nlohmann::json::object();
  for (Verdict v : AllVerdicts()) {
    const auto it = s.verdicts.find(v);
    verdicts[std::string(VerdictName(v))] =
        it == s.verdicts.end() ? 0 : it->second;
  }
  nlohmann::json dirs = nlohmann::json::array();
  for (const auto& [signature, dir] : s.findings) {
    dirs.push_back({{"signature", signature}, {"dir", dir}});
  }
  const nlohmann::json j{{"cases", s.cases},
                         {"findings", s.findings.size()},
                         {"hits", s.hits},
                         {"invalid", s.invalid},
                         {"errors", s.errors},
                         {"seconds", s.seconds},
                         {"verdicts", verdicts},
                         {"finding_dirs", dirs},
                         {"interrupted", s.interrupted}};
  return j.dump(2) + "\n";
}

}  // namespace dpfuzz
