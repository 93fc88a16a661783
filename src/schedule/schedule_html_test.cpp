#include "schedule/schedule_html.h"

#include <string>

#include <doctest/doctest.h>

namespace reshardctl {

TEST_CASE("schedule html: a finding's cells are highlighted, and names from the input are escaped") {
  const SourceFile source = SourceFile::fromString("<script>r0.ir", "{\n    (%0) = \"pd_op.all_reduce\" ...\n}\n");
  Schedule schedule;
  for (int64_t rank : {0, 1}) {
    RankSchedule ranked{rank, &source, rank == 0 ? "<script>r0.ir" : "r1\"&.ir", {}};
    CommCall call;
    call.op = "pd_op.all_reduce";
    call.ring = 7;
    call.count = rank == 0 ? 64 : 32;
    call.dtype = "f32";
    call.reduce = ReduceType::Sum;
    call.location = 6;
    ranked.calls.push_back(call);
    schedule.indexOfRank.emplace(rank, schedule.ranks.size());
    schedule.ranks.push_back(std::move(ranked));
  }
  resolveSchedule(schedule, {});
  const ScheduleCheck check = checkSchedule(schedule);
  REQUIRE(check.findings.size() == 1);
  const std::string page = scheduleHtml(schedule, check);
  CHECK(page.find("<script>") == std::string::npos);
  CHECK(page.find("&lt;script&gt;r0.ir") != std::string::npos);
  CHECK(page.find("r1&quot;&amp;.ir") != std::string::npos);
  CHECK(page.find("<td class=\"finding\" title=\"finding 1\">all_reduce SUM 32 x f32") != std::string::npos);
  CHECK(page.find("<td class=\"finding\" title=\"finding 1\">all_reduce SUM 64 x f32") != std::string::npos);
  CHECK(page.find("ring 7 [0,1] · line 2") != std::string::npos);
}

TEST_CASE("schedule html: a clean schedule says so") {
  Schedule schedule;
  ScheduleCheck check;
  const std::string page = scheduleHtml(schedule, check);
  CHECK(page.find("No mismatch, no deadlock.") != std::string::npos);
  CHECK(page.rfind("</html>\n") == page.size() - 8);
}

}  // namespace reshardctl
