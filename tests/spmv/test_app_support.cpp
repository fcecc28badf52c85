// The apps' shared support: output files that appear whole or not at all and write through links and devices,
// the command-line parser's numbers and values, run_app's exit codes, and raw binary input files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <new>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "app_support/command_line.hpp"
#include "app_support/numbers.hpp"
#include "test_support/error_of.hpp"
#include "app_support/errors.hpp"
#include "app_support/output_file.hpp"
#include "app_support/raw_file.hpp"

namespace {

using dpt::app::commit_together;
using dpt::app::output_file;

using dpt::test::error_of;

// A fresh directory under the system's temporary directory, removed with everything in it at the end.
struct scratch_directory {
  std::string path;
  scratch_directory() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/dpt-test-XXXXXX";
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~scratch_directory() { std::system(("rm -rf '" + path + "'").c_str()); }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
};

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

mode_t type_of(const std::string& path) {  // of the path itself, not of what a link names; 0 if nothing is there
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

std::string link_target(const std::string& path) {
  char buffer[4096];
  const auto length = ::readlink(path.c_str(), buffer, sizeof buffer);
  return length < 0 ? "" : std::string(buffer, static_cast<std::size_t>(length));
}

// The names in `directory`, sorted.
std::vector<std::string> names_in(const std::string& directory) {
  std::vector<std::string> names;
  const auto listing = directory + "/.listing";
  std::system(("ls -A '" + directory + "' > '" + listing + "'").c_str());
  std::istringstream lines(contents(listing));
  for (std::string name; std::getline(lines, name);) {
    if (name != ".listing") names.push_back(name);
  }
  std::remove(listing.c_str());
  std::sort(names.begin(), names.end());
  return names;
}

void write_and_commit(const std::string& path, const std::string& text) {
  output_file out(path);
  out.stream() << text;
  out.commit();
}

}  // namespace

TEST_CASE("output_file: a regular file appears whole at commit, never in part", "[app_support]" DPT_BACKEND_TAG) {
  scratch_directory dir;
  SECTION("nothing before commit, the whole text after") {
    write_text(dir / "y.txt", "old");
    {
      output_file out(dir / "y.txt");
      out.stream() << "new text\n";
      CHECK(contents(dir / "y.txt") == "old");
      out.commit();
    }
    CHECK(contents(dir / "y.txt") == "new text\n");
    CHECK(names_in(dir.path) == std::vector<std::string>{"y.txt"});
  }
  SECTION("a run that fails before commit leaves nothing behind") {
    {
      output_file out(dir / "y.txt");
      out.stream() << "partial";
    }
    CHECK(names_in(dir.path).empty());
  }
}

TEST_CASE("output_file: two outputs of one run cannot name the same file", "[app_support]" DPT_BACKEND_TAG) {
  scratch_directory dir;
  REQUIRE(::mkdir((dir / "sub").c_str(), 0700) == 0);
  REQUIRE(::symlink("sub", (dir / "link").c_str()) == 0);
  {
    output_file first(dir / "sub/y.txt");
    first.stream() << "first\n";
    SECTION("however the path is spelt") {
      const std::string spelling =
          GENERATE(std::string("sub/y.txt"), std::string("sub/./y.txt"), std::string("link/y.txt"));
      CHECK(error_of([&] { output_file second(dir / spelling); }) ==
            dir / spelling + ": the same file as another output of this run");
    }
    SECTION("another name in the same folder is another file") {
      output_file second(dir / "sub/z.txt");
      second.commit();
    }
    SECTION("a device takes any number of outputs") {
      output_file a("/dev/null"), b("/dev/null");
      a.commit();
      b.commit();
    }
    first.commit();
  }
  CHECK(contents(dir / "sub/y.txt") == "first\n");
  write_and_commit(dir / "link/y.txt", "again\n");  // a finished output gives up its file
  CHECK(contents(dir / "sub/y.txt") == "again\n");
}

namespace {

// In a child process: opens an output to `path`, writes to it, then raises `signal`. Returns how the child ended.
int status_of_child_stopped_by(int signal, const std::string& path) {
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child == 0) {
    for (const int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, SIG_DFL);  // as an app has them (Catch2 handles them)
    output_file out(path);
    out.stream() << "partial";
    out.stream().flush();
    std::raise(signal);
    ::_exit(3);  // only if the signal did not end the process
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return status;
}

}  // namespace

TEST_CASE("output_file: a run stopped by a signal leaves no temporary behind", "[app_support]" DPT_BACKEND_TAG) {
  scratch_directory dir;
  const int signal = GENERATE(SIGINT, SIGTERM, SIGHUP);
  CAPTURE(signal);
  SECTION("a new file") {
    const int status = status_of_child_stopped_by(signal, dir / "y.txt");
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == signal);  // it still ends as the signal would have
    CHECK(names_in(dir.path).empty());
  }
  SECTION("a file replaced: the old text stays") {
    write_text(dir / "y.txt", "old");
    const int status = status_of_child_stopped_by(signal, dir / "y.txt");
    CHECK((WIFSIGNALED(status) && WTERMSIG(status) == signal));
    CHECK(names_in(dir.path) == std::vector<std::string>{"y.txt"});
    CHECK(contents(dir / "y.txt") == "old");
  }
}

TEST_CASE("output_file: an output that is one of the run's inputs is refused, however it is reached",
          "[app_support]" DPT_BACKEND_TAG) {
  using dpt::app::named_path;
  scratch_directory dir;
  write_text(dir / "a.mtx", "the input");
  REQUIRE(::mkdir((dir / "sub").c_str(), 0700) == 0);
  REQUIRE(::symlink("../a.mtx", (dir / "sub/link.mtx").c_str()) == 0);
  REQUIRE(::link((dir / "a.mtx").c_str(), (dir / "hard.mtx").c_str()) == 0);
  const std::vector<named_path> inputs{{"MATRIX", dir / "a.mtx"}, {"--x", ""}};
  SECTION("by any spelling, symbolic link or hard link: an input error naming both, nothing written") {
    const std::string spelling = GENERATE(std::string("a.mtx"), std::string("./a.mtx"), std::string("sub/../a.mtx"),
                                          std::string("sub/link.mtx"), std::string("hard.mtx"));
    CHECK(error_of([&] {
            output_file out(named_path{"--out", dir / spelling}, inputs);
          }) == "--out " + dir / spelling + ": the same file as the input MATRIX " + dir / "a.mtx" +
                    "; an output must not replace an input");
    CHECK(contents(dir / "a.mtx") == "the input");
    CHECK(names_in(dir.path) == std::vector<std::string>{"a.mtx", "hard.mtx", "sub"});
  }
  SECTION("an input not there yet is still the same path") {
    const std::vector<named_path> missing{{"--input", dir / "new.txt"}};
    CHECK_THAT(error_of([&] {
                 output_file out(named_path{"--out", dir / "sub/../new.txt"}, missing);
               }),
               Catch::Contains("the same file as the input --input"));
  }
  SECTION("another file, or an input that is not a regular file, is no conflict") {
    output_file other(named_path{"--out", dir / "y.txt"}, inputs);
    other.stream() << "y";
    other.commit();
    CHECK(contents(dir / "y.txt") == "y");
    output_file device(named_path{"--out", "/dev/null"}, {{"--input", "/dev/null"}});
    device.commit();
  }
}

TEST_CASE("output_file: a replaced file keeps its permission bits, and its owner where the process may set it",
          "[app_support]" DPT_BACKEND_TAG) {
  scratch_directory dir;
  const mode_t mode = GENERATE(mode_t{0640}, mode_t{0444}, mode_t{0600});
  CAPTURE(mode);
  write_text(dir / "y.txt", "old");
  REQUIRE(::chmod((dir / "y.txt").c_str(), mode) == 0);
  const bool root = ::geteuid() == 0;
  if (root) REQUIRE(::chown((dir / "y.txt").c_str(), 4321, 8765) == 0);
  write_and_commit(dir / "y.txt", "new");
  struct stat st {};
  REQUIRE(::stat((dir / "y.txt").c_str(), &st) == 0);
  CHECK(contents(dir / "y.txt") == "new");
  CHECK((st.st_mode & 07777) == mode);
  if (root) {
    CHECK(st.st_uid == 4321);
    CHECK(st.st_gid == 8765);
  }
  write_and_commit(dir / "z.txt", "a new file");  // a new file gets the usual mode, from the umask
  REQUIRE(::stat((dir / "z.txt").c_str(), &st) == 0);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  CHECK((st.st_mode & 0777) == (0666 & ~mask));
}

TEST_CASE("output_file: the temporary a killed run leaves is removed by the next output to its file",
          "[app_support]" DPT_BACKEND_TAG) {
  scratch_directory dir;
  write_text(dir / "y.txt", "old");
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child == 0) {
    output_file out(dir / "y.txt");
    out.stream() << "partial";
    out.stream().flush();
    std::raise(SIGKILL);  // no handler sees it: the temporary stays
    ::_exit(3);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
  const auto after_kill = names_in(dir.path);
  REQUIRE(after_kill.size() == 2);
  CHECK_THAT(after_kill[1], Catch::StartsWith("y.txt.partial-" + std::to_string(child) + "-"));
  const std::string live = "y.txt.partial-" + std::to_string(::getpid()) + "-7";  // this process is alive
  write_text(dir / live, "a live run's");
  const std::string other = "z.txt.partial-" + std::to_string(child) + "-0";
  write_text(dir / other, "another output's");
  write_and_commit(dir / "y.txt", "new");
  CHECK(contents(dir / "y.txt") == "new");
  CHECK(names_in(dir.path) == std::vector<std::string>{"y.txt", live, other});
  // a run's input that happens to be named like a dead run's temporary is the run's input, not debris
  const std::string input = "y.txt.partial-" + std::to_string(child) + "-1";
  write_text(dir / input, "an input");
  {
    output_file out(dpt::app::named_path{"--out", dir / "y.txt"}, {{"--input", dir / input}});
    out.stream() << "newer";
    out.commit();
  }
  CHECK(contents(dir / input) == "an input");
  CHECK(contents(dir / "y.txt") == "newer");
}

TEST_CASE("output_file writes through symbolic links to the file they name", "[app_support]" DPT_BACKEND_TAG) {
  scratch_directory dir;
  SECTION("a link to an existing file keeps the link and replaces the file's contents") {
    write_text(dir / "real.txt", "old");
    REQUIRE(::symlink("real.txt", (dir / "link.mtx").c_str()) == 0);
    write_and_commit(dir / "link.mtx", "y\n");
    CHECK(type_of(dir / "link.mtx") == S_IFLNK);
    CHECK(link_target(dir / "link.mtx") == "real.txt");
    CHECK(contents(dir / "real.txt") == "y\n");
    CHECK(names_in(dir.path) == std::vector<std::string>{"link.mtx", "real.txt"});
  }
  SECTION("a relative link from another directory, through a chain of links") {
    REQUIRE(::mkdir((dir / "sub").c_str(), 0755) == 0);
    write_text(dir / "real.txt", "old");
    REQUIRE(::symlink("../real.txt", (dir / "sub/first").c_str()) == 0);
    REQUIRE(::symlink("sub/first", (dir / "second").c_str()) == 0);
    write_and_commit(dir / "second", "through two links\n");
    CHECK(type_of(dir / "second") == S_IFLNK);
    CHECK(type_of(dir / "sub/first") == S_IFLNK);
    CHECK(contents(dir / "real.txt") == "through two links\n");
  }
  SECTION("a dangling link creates the file it names") {
    REQUIRE(::symlink("new.txt", (dir / "link").c_str()) == 0);
    write_and_commit(dir / "link", "created\n");
    CHECK(type_of(dir / "link") == S_IFLNK);
    CHECK(contents(dir / "new.txt") == "created\n");
  }
  SECTION("a link that fails before commit leaves its file alone") {
    write_text(dir / "real.txt", "old");
    REQUIRE(::symlink("real.txt", (dir / "link").c_str()) == 0);
    {
      output_file out(dir / "link");
      out.stream() << "partial";
    }
    CHECK(contents(dir / "real.txt") == "old");
    CHECK(names_in(dir.path) == std::vector<std::string>{"link", "real.txt"});
  }
  SECTION("a loop of links is an input error") {
    REQUIRE(::symlink("b", (dir / "a").c_str()) == 0);
    REQUIRE(::symlink("a", (dir / "b").c_str()) == 0);
    CHECK_THAT(error_of([&] { output_file out(dir / "a"); }), Catch::StartsWith(dir / "a: "));
  }
}

TEST_CASE("output_file writes what is not a regular file directly, at commit", "[app_support]" DPT_BACKEND_TAG) {
  SECTION("/dev/null stays the null device") {
    write_and_commit("/dev/null", "discarded\n");
    CHECK(type_of("/dev/null") == S_IFCHR);
  }
  SECTION("/dev/full: the failed write is an error, and the device stays") {
    output_file out("/dev/full");
    out.stream() << "no room\n";
    CHECK_THROWS_WITH(out.commit(), Catch::StartsWith("/dev/full: writing failed"));
    CHECK(type_of("/dev/full") == S_IFCHR);
  }
  SECTION("a FIFO gets the text and stays a FIFO; nothing reaches it before commit") {
    scratch_directory dir;
    const auto fifo = dir / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    // A non-blocking reader, so that the writer's open succeeds at once and the test cannot hang.
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    REQUIRE(reader >= 0);
    {
      output_file out(fifo);
      out.stream() << "through the pipe\n";
      char byte;
      CHECK(::read(reader, &byte, 1) <= 0);  // no writer yet, no data
      out.commit();
    }
    std::string got;
    char buffer[256];
    for (ssize_t n; (n = ::read(reader, buffer, sizeof buffer)) > 0;) got.append(buffer, static_cast<std::size_t>(n));
    ::close(reader);
    CHECK(got == "through the pipe\n");
    CHECK(type_of(fifo) == S_IFIFO);
    CHECK(names_in(dir.path) == std::vector<std::string>{"fifo"});
  }
  SECTION("a FIFO whose run fails before commit is never opened") {
    scratch_directory dir;
    const auto fifo = dir / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    {
      output_file out(fifo);  // with no reader, an open for writing would block here
      out.stream() << "partial";
    }
    CHECK(type_of(fifo) == S_IFIFO);
    CHECK(names_in(dir.path) == std::vector<std::string>{"fifo"});
  }
}

TEST_CASE("commit_together: the outputs of one run appear all or none", "[app_support]" DPT_BACKEND_TAG) {
  scratch_directory dir;
  SECTION("a device that refuses its write leaves the files as they were, links and all") {
    write_text(dir / "kept.txt", "old");
    write_text(dir / "real.txt", "old");
    REQUIRE(::symlink("real.txt", (dir / "link").c_str()) == 0);
    {
      output_file fresh(dir / "fresh.txt"), kept(dir / "kept.txt"), link(dir / "link"), full("/dev/full");
      for (auto* out : {&fresh, &kept, &link, &full}) out->stream() << "new";
      CHECK_THROWS_WITH(commit_together({&fresh, &kept, &full, &link}), Catch::StartsWith("/dev/full: writing failed"));
    }
    CHECK(contents(dir / "kept.txt") == "old");
    CHECK(contents(dir / "real.txt") == "old");
    CHECK(type_of(dir / "link") == S_IFLNK);
    CHECK(names_in(dir.path) == std::vector<std::string>{"kept.txt", "link", "real.txt"});
    CHECK(type_of("/dev/full") == S_IFCHR);
  }
  SECTION("outputs that all succeed all appear; a null entry is skipped") {
    {
      output_file a(dir / "a.txt"), b(dir / "b.txt"), null_device("/dev/null");
      a.stream() << "first";
      b.stream() << "second";
      commit_together({&a, nullptr, &null_device, &b});
    }
    CHECK(contents(dir / "a.txt") == "first");
    CHECK(contents(dir / "b.txt") == "second");
    CHECK(names_in(dir.path) == std::vector<std::string>{"a.txt", "b.txt"});
    CHECK(type_of("/dev/null") == S_IFCHR);
  }
}

TEST_CASE("output_file: a path that cannot be written is an input error before any work",
          "[app_support]" DPT_BACKEND_TAG) {
  scratch_directory dir;
  SECTION("a directory") {
    CHECK(error_of([&] { output_file out(dir.path); }) == dir.path + ": is a directory");
    REQUIRE(::symlink(".", (dir / "here").c_str()) == 0);
    CHECK(error_of([&] { output_file out(dir / "here"); }) == dir / "here: is a directory");
  }
  SECTION("a directory that does not exist") {
    CHECK_THAT(error_of([&] { output_file out(dir / "missing/y.txt"); }),
               Catch::StartsWith(dir / "missing/y.txt: ") && Catch::Contains("No such file or directory"));
    REQUIRE(::symlink("missing/y.txt", (dir / "link").c_str()) == 0);
    CHECK_THAT(error_of([&] { output_file out(dir / "link"); }), Catch::StartsWith(dir / "link: "));
  }
  SECTION("a file where a directory should be") {
    write_text(dir / "file", "");
    CHECK_THAT(error_of([&] { output_file out(dir / "file/y.txt"); }), Catch::Contains("Not a directory"));
  }
  SECTION("an empty path") {
    CHECK(error_of([&] { output_file out(""); }) == "the output path is empty");
  }
}

TEST_CASE("cli numbers: underflow is a value, overflow an error", "[app_support]" DPT_BACKEND_TAG) {
  using dpt::app::parse_double;
  using dpt::app::parse_int;
  SECTION("subnormal and underflowing doubles are accepted") {
    const double tiny = parse_double("1e-310", "--range HI");
    CHECK(tiny > 0);
    CHECK(tiny < DBL_MIN);
    CHECK(parse_double("-4.9e-324", "x") == -std::numeric_limits<double>::denorm_min());
    CHECK(parse_double("1e-400", "x") == 0);  // below every subnormal: rounds to zero, as strtod says
    CHECK(parse_double("2.2250738585072014e-308", "x") == DBL_MIN);
  }
  SECTION("overflowing doubles are out of range") {
    CHECK(error_of([] { parse_double("1e999", "--radius"); }) == "--radius: '1e999' is out of range");
    CHECK(error_of([] { parse_double("-1e999", "x"); }) == "x: '-1e999' is out of range");
    CHECK(parse_double("1.7976931348623157e308", "x") == DBL_MAX);
  }
  SECTION("what is not a number stays an error") {
    CHECK(error_of([] { parse_double("", "x"); }) == "x: '' is not a number");
    CHECK(error_of([] { parse_double("1e", "x"); }) == "x: '1e' is not a number");
    CHECK(error_of([] { parse_double("abc", "x"); }) == "x: 'abc' is not a number");
  }
  SECTION("numbers are decimal: hexadecimal, which strtod reads, is not a number") {
    for (const char* hex : {"0x10", "-0X1p3", "0x1.8p1", "0x0"}) {
      CAPTURE(hex);
      double value = 0;
      CHECK(dpt::app::read_double(hex, value) == dpt::app::double_token::not_a_number);
    }
    CHECK(error_of([] { parse_double("0x10", "--range LO"); }) == "--range LO: '0x10' is not a number");
    CHECK(parse_double("1e1", "x") == 10);
    CHECK(std::isinf(parse_double("-infinity", "x")));  // words stay numbers: callers that want finite check
  }
  SECTION("integers") {
    CHECK(parse_int("-9223372036854775808", "n") == std::numeric_limits<long long>::min());
    CHECK(error_of([] { parse_int("9223372036854775808", "--n"); }) == "--n: '9223372036854775808' is out of range");
    CHECK(error_of([] { parse_int("1.5", "--n"); }) == "--n: '1.5' is not an integer");
  }
  SECTION("the whole token is the number: no white space, nothing past a NUL byte") {
    CHECK(error_of([] { parse_int(" 5", "--n"); }) == "--n: ' 5' is not an integer");
    CHECK(error_of([] { parse_double("\t5", "x"); }) == "x: '?5' is not a number");
    CHECK(error_of([] { parse_double("5 ", "x"); }) == "x: '5 ' is not a number");
    CHECK(error_of([] {
            parse_int(std::string("1\0"
                                  "9",
                                  3),
                      "--n");
          }) == "--n: '1?9' is not an integer");
    CHECK(error_of([] { parse_double(std::string("1\0garbage", 9), "x"); }) == "x: '1?garbage' is not a number");
    double value = 0;
    CHECK(dpt::app::read_double(std::string("2\0", 2), value) == dpt::app::double_token::not_a_number);
    CHECK(dpt::app::read_double("+2.5", value) == dpt::app::double_token::number);
    CHECK(value == 2.5);
  }
}

TEST_CASE("quote_token: a token in a message is quoted, printable and short", "[app_support]" DPT_BACKEND_TAG) {
  using dpt::app::quote_token;
  CHECK(quote_token("abc") == "'abc'");
  CHECK(quote_token(std::string("a\0b\n\xff", 5)) ==
        "'a?b?"
        "?'");
  CHECK(quote_token(std::string(41, 'x')) == "'" + std::string(40, 'x') + "...'");
  CHECK(quote_token(std::string(40, 'x')) == "'" + std::string(40, 'x') + "'");
}

namespace {

// What run_app prints on stderr and returns for `body`.
std::pair<std::string, int> run_app_capturing(const std::function<int()>& body) {
  scratch_directory dir;
  const auto path = dir / "stderr";
  std::fflush(stderr);
  const int saved = ::dup(2);
  const int file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ::dup2(file, 2);
  ::close(file);
  const int status = dpt::app::run_app("dpt-test", body);
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  return {contents(path), status};
}

}  // namespace

TEST_CASE("run_app: exit codes and one-line messages", "[app_support]" DPT_BACKEND_TAG) {
  CHECK(run_app_capturing([] { return 0; }) == std::pair<std::string, int>{"", 0});
  CHECK(run_app_capturing([]() -> int { throw dpt::app::file_error("a.mtx", 3, "bad"); }) ==
        std::pair<std::string, int>{"dpt-test: error: a.mtx:3: bad\n", 2});
  CHECK(run_app_capturing([]() -> int { throw dpt::app::check_failure("y is wrong"); }) ==
        std::pair<std::string, int>{"dpt-test: check failed: y is wrong\n", 1});
  const auto [message, status] = run_app_capturing([]() -> int { throw std::bad_alloc(); });
  CHECK(status == 1);
  CHECK_THAT(message, Catch::StartsWith("dpt-test: error: not enough memory"));
  CHECK_THAT(message, !Catch::Contains("std::bad_alloc"));
  CHECK(std::count(message.begin(), message.end(), '\n') == 1);
  CHECK(run_app_capturing([]() -> int { throw dpt::app::file_error("new\nline.mtx", 3, "bad\r"); }) ==
        std::pair<std::string, int>{"dpt-test: error: new?line.mtx:3: bad?\n", 2});
  // a NUL byte in a message (from a file name or a token) would end what() there: it is shown, and the rest kept
  CHECK(run_app_capturing([]() -> int { throw dpt::app::file_error("a.txt", 1, std::string("'1\0002' bad", 9)); }) ==
        std::pair<std::string, int>{"dpt-test: error: a.txt:1: '1?2' bad\n", 2});
  CHECK(run_app_capturing([]() -> int { throw dpt::app::check_failure(std::string("y\0 wrong", 8)); }) ==
        std::pair<std::string, int>{"dpt-test: check failed: y? wrong\n", 1});
}

namespace {

// The values parse_command_line gave to an app with options --out, --x and --range and the flag --check.
struct parsed {
  std::string out, x, range;
  bool check = false;
  std::vector<std::string> positionals;
};

parsed parse(std::vector<std::string> words) {
  std::vector<const char*> argv{"app"};
  for (auto& w : words) argv.push_back(w.c_str());
  dpt::app::command_line app{"app"};
  parsed p;
  dpt::app::add_value_option(app, "out", p.out);
  dpt::app::add_value_option(app, "x", p.x);
  dpt::app::add_value_option(app, "range", p.range);
  dpt::app::add_flag_option(app, "check", p.check);
  p.positionals = dpt::app::parse_command_line(app, static_cast<int>(argv.size()), argv.data());
  return p;
}

}  // namespace

TEST_CASE("cli: an option is given once, and its value is not the next option", "[app_support]" DPT_BACKEND_TAG) {
  CHECK(error_of([] { parse({"--out", "a", "--out", "b"}); }) == "option --out is given twice");
  CHECK(error_of([] { parse({"--out=a", "--x", "b", "--out=a"}); }) == "option --out is given twice");
  CHECK(error_of([] { parse({"--check", "--check"}); }) == "option --check is given twice");
  CHECK(error_of([] {
          parse({"--out", "--check"});
        }) ==
        "option --out needs a value, not the option '--check' (write --out=VALUE for a value that starts with --)");
  CHECK(error_of([] {
          parse({"--x", "--out", "y.mtx"});
        }) == "option --x needs a value, not the option '--out' (write --x=VALUE for a value that starts with --)");
  CHECK(parse({"--out=--check"}).out == "--check");
  CHECK(parse({"--range", "-1:5"}).range == "-1:5");  // one dash: a negative number, not an option
  CHECK(parse({"--out", "-"}).out == "-");
}

TEST_CASE("cli: an unknown option is named; positionals keep their order", "[app_support]" DPT_BACKEND_TAG) {
  CHECK(error_of([] { parse({"a.mtx", "--bogus"}); }) == "unknown option --bogus (try --help)");
  CHECK(error_of([] { parse({"--bogus=1", "--out", "y"}); }) == "unknown option --bogus (try --help)");
  CHECK(error_of([] { parse({"--help"}); }) == "unknown option --help (try --help)");  // an app declares its own
  CHECK(parse({"b", "--check", "-1", "a"}).positionals == std::vector<std::string>{"b", "-1", "a"});
  CHECK(parse({"--", "--out", "a"}).positionals == std::vector<std::string>{"--out", "a"});  // after --, all are
}

TEST_CASE("cli: an option's value cannot be empty", "[app_support]" DPT_BACKEND_TAG) {
  CHECK(error_of([] { parse({"--out="}); }) == "option --out needs a value");
  CHECK(error_of([] { parse({"--x=", "a.mtx"}); }) == "option --x needs a value");
  CHECK(error_of([] { parse({"--out", ""}); }) == "option --out needs a value");
  CHECK(error_of([] { parse({"--out"}); }) == "option --out needs a value");
  CHECK(error_of([] { parse({"--check="}); }) == "option --check takes no value");
  const auto args = parse({"--out=y.mtx", "--x", "x.mtx", "--check", "a.mtx"});
  CHECK(args.out == "y.mtx");
  CHECK(args.x == "x.mtx");
  CHECK(args.check);
  CHECK(args.positionals == std::vector<std::string>{"a.mtx"});
}

TEST_CASE("read_raw_file reads whole records and names the file for anything else", "[app_support]" DPT_BACKEND_TAG) {
  scratch_directory dir;
  const std::vector<double> values{0.5, -2, 1e300, 3, 4, 5};
  {
    std::ofstream out(dir / "six.f64", std::ios::binary);
    out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 8));
  }
  write_text(dir / "empty.f64", "");
  SECTION("a file of whole records gives its elements, in order") {
    CHECK(dpt::app::read_raw_file<double>(dir / "six.f64", "float64 values") == values);
    CHECK(dpt::app::read_raw_file<double>(dir / "six.f64", "pairs", 2) == values);
    CHECK(dpt::app::read_raw_file<double>(dir / "six.f64", "triples", 3) == values);
    CHECK(dpt::app::read_raw_file<double>(dir / "empty.f64", "float64 values").empty());
  }
  SECTION("a part of a record left over is bad input, with the sizes") {
    CHECK(error_of([&] { dpt::app::read_raw_file<double>(dir / "six.f64", "quadruples", 4); }) ==
          dir / "six.f64: 48 bytes is not a whole number of quadruples (32 bytes each)");
    CHECK(error_of([&] { dpt::app::read_raw_file<std::int64_t>(dir / "six.f64", "quintuples", 5); }) ==
          dir / "six.f64: 48 bytes is not a whole number of quintuples (40 bytes each)");
  }
  SECTION("a file that cannot be opened or read is bad input") {
    CHECK(error_of([&] { dpt::app::read_raw_file<float>(dir / "none.f32", "float32 values"); }) ==
          dir / "none.f32: cannot open for reading");
    CHECK(error_of([&] { dpt::app::read_raw_file<float>(dir.path, "float32 values"); }) == dir.path + ": read error");
  }
}
