// An append-only file of lines that survives a crash: each append is one
// write followed by fdatasync, and a failed append is cut back off the file,
// so what append() accepted is on disk whole and nothing else is. A last line
// without its '\n' was torn by a crash; readers skip it.
//
// One process owns a journal: the file is locked (flock) while open, and a
// second process given the same path fails to open it. Not thread-safe: its
// owner serialises the calls. The usage and audit journals keep their records
// in one each.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace modelgw::util {

class LineJournal {
 public:
  // Opens (creating the parent folder and the file) and locks `path`.
  // Throws std::runtime_error "<name> <path>: <why>"; `path_setting` is the
  // configuration key that gives another process a file of its own.
  LineJournal(std::string path, std::string_view name, std::string_view path_setting);
  ~LineJournal();
  LineJournal(const LineJournal&) = delete;
  LineJournal& operator=(const LineJournal&) = delete;

  // Appends `text` (whole lines) as one write and syncs it. On failure (disk
  // full, I/O error) the file is cut back to where it was, `why` says what the
  // system said, and false is returned.
  bool append(std::string_view text, std::string& why);
  // Calls `line` with each complete line from the start, oldest first (a
  // chunk of the file at a time), until it returns false.
  bool read_lines(const std::function<bool(std::string_view)>& line, std::string& why) const;
  // Empties the file and syncs that.
  bool clear(std::string& why);

  // The file's size; 0 for what is not a regular file.
  std::uint64_t bytes() const { return bytes_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool regular_ = false;  // a regular file (not a device such as /dev/full)
  std::uint64_t bytes_ = 0;
};

}  // namespace modelgw::util
