// The schedule as a page: one self-contained HTML file with the summary,
// each finding (its message and every rank's op in it), and the per-rank
// table (one row per step, one column per rank) whose cells in a finding
// are highlighted and whose cell where a rank waits forever is marked.
// Every string from the program goes through view/html_writer.h's escaping.
#pragma once

#include <string>

#include "schedule/schedule.h"
#include "schedule/schedule_check.h"

namespace reshardctl {

// Linear in the calls and the findings' ops.
std::string scheduleHtml(const Schedule& schedule, const ScheduleCheck& check);

}  // namespace reshardctl
