// What `reshardctl schedule` writes: each finding as a diagnostic (the error
// at one rank's op, a note at each other rank's), the per-rank listing of the
// calls and the wavefront, the table (one column per rank) and the JSON
// document (schema/schedule.schema.json).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/diagnostics.h"
#include "schedule/schedule.h"
#include "schedule/schedule_check.h"

namespace reshardctl {

// Where a call is: "r0.ir:12:5".
std::string placeText(const RankSchedule& rank, const CommCall& call);
// The call as the listing and the table show it: "send 16 x f32 to rank 1".
std::string callText(const CommCall& call);

// A finding as the diagnostic of the rank whose source it points into. Its
// notes locate the other ranks' ops: in the same source as notes with a
// place, in another file as notes whose text starts with that op's
// `file:line:col`.
struct RankDiagnostic {
  size_t rank = 0;  // index into Schedule::ranks: the source it is about
  Diagnostic diagnostic;
};
std::vector<RankDiagnostic> findingDiagnostics(const Schedule& schedule, const ScheduleCheck& check);

// Warnings about what is listed but not checked: communicators whose ranks
// have no program given.
std::vector<std::string> uncheckedCommunicators(const Schedule& schedule);

// Per rank its calls, one a line; then, when there are findings, how far
// each rank got.
std::string scheduleListing(const Schedule& schedule, const ScheduleCheck& check);
// One row per step, one column per rank: its n-th call.
std::string scheduleTable(const Schedule& schedule);
nlohmann::ordered_json scheduleJson(const Schedule& schedule, const ScheduleCheck& check);

// "2 ranks, 6 calls on 3 communicators: clean" or "...: 2 findings".
std::string scheduleSummary(const Schedule& schedule, const ScheduleCheck& check);

}  // namespace reshardctl
