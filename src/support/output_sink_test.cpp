#include "support/output_sink.h"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace reshardctl {

TEST_CASE("output sink: memory keeps every piece in order") {
  OutputSink sink;
  sink += "ab";
  sink += 'c';
  sink.append(3, ' ');
  sink += std::string_view();  // an empty view may hold a null pointer
  const std::string big(5 << 20, 'x');  // past the first buffer: it grows
  sink.write(big);
  CHECK(sink.view().substr(0, 6) == "abc   ");
  const std::string text = sink.take();
  CHECK(text == "abc   " + big);  // growing copies the bytes so far, and only those
  CHECK(sink.view().empty());
  sink += "again";
  CHECK(sink.take() == "again");
}

TEST_CASE("output sink: growth by short pieces keeps them all, and clear() starts over") {
  OutputSink sink;
  std::string expected;
  for (int i = 0; i < 400000; ++i) {  // ~4.4 MB: two growths of the 2 MiB start
    const std::string piece = std::to_string(i) + ',';
    sink += piece;
    expected += piece;
  }
  CHECK(sink.view() == expected);
  const size_t capacity = sink.capacity();
  sink.clear();
  sink += "x";
  CHECK(sink.view() == "x");
  CHECK(sink.capacity() == capacity);
}

TEST_CASE("output sink: a consumer gets the bytes a buffer at a time, all of them") {
  std::string received;
  size_t deliveries = 0;
  {
    OutputSink sink([&](std::string_view chunk) {
      received += chunk;
      ++deliveries;
    });
    for (int i = 0; i < 300000; ++i) sink += "0123456789";  // 3 MB of short pieces
    sink.write(std::string(3 << 20, 'y'));                  // one large block, not copied
    CHECK(received.size() < size_t{6} << 20);               // not all delivered before the flush
  }  // the destructor flushes
  CHECK(received.size() == size_t{3000000} + (3 << 20));
  CHECK(received.substr(0, 12) == "012345678901");
  CHECK(deliveries >= 3);
}

TEST_CASE("output sink: the first write error is kept and named") {
  const int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  OutputSink sink(fd, "<stdout>", true);
  sink += "text";
  CHECK_FALSE(sink.flush());
  CHECK(sink.failed());
  CHECK(sink.errorMessage() == "cannot write '<stdout>': No space left on device");
  sink += "more";
  CHECK_FALSE(sink.close());
}

}  // namespace reshardctl
