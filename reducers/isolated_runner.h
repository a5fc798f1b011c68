// IsolatedRunner: runs reduction candidates in an isolated worker.
//
// A candidate may crash, hang or allocate without bound (that may be the
// very bug being reduced), so each runs in a worker process under a
// supervisor (crashes/isolation/supervisor.h) with glibc's checking allocator,
// which makes heap corruption fail where it happens. The worker is reused from
// one candidate to the next and replaced when it dies; RunFresh starts a
// new supervisor for one case (the final verification).
//
//   absl::StatusOr<std::unique_ptr<IsolatedRunner>> r =
//       IsolatedRunner::Start(isolation);
//   absl::StatusOr<std::optional<Finding>> f = (*r)->Run(candidate);

#ifndef DPFUZZ_REDUCERS_ISOLATED_RUNNER_H_
#define DPFUZZ_REDUCERS_ISOLATED_RUNNER_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "crashes/findings/finding.h"
#include "crashes/isolation/supervisor.h"

namespace dpfuzz {

class IsolatedRunner {
 public:
  // One worker; the culprit search re-runs only the case in flight.
  static absl::StatusOr<std::unique_ptr<IsolatedRunner>> Start(
      SupervisorOptions isolation);
  ~IsolatedRunner();

  // The case's finding; nullopt when it shows none (or the op rejects its
  // arguments); an error when it cannot be run, or when no result came
  // within three timeouts and 30 s (its workers are replaced then).
  absl::StatusOr<std::optional<Finding>> Run(const Case& c);

  // As Run, in a supervisor and worker started for this case alone.
  absl::StatusOr<std::optional<Finding>> RunFresh(const Case& c);

 private:
  IsolatedRunner(SupervisorOptions isolation, std::string dir,
                 std::unique_ptr<Supervisor> supervisor);
  absl::StatusOr<std::string> WriteCase(const Case& c);

  SupervisorOptions isolation_;
  std::string dir_;
  std::unique_ptr<Supervisor> supervisor_;
  int written_ = 0;
};

}  // namespace dpfuzz

#endif  // DPFUZZ_REDUCERS_ISOLATED_RUNNER_H_
