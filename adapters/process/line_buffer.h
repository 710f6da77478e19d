#pragma once
// Bytes read from a pipe, taken out a line at a time: the engine's answers (ChildProcess::readLine)
// and the requests `tapecheck serve` reads. Each byte is searched for '\n' once, however the line
// arrives (in one read or in a million), and a line taken moves no byte after it more than a
// bounded number of times: reading costs time linear in what was read. A line over the limit is
// known as soon as the buffer holds more than the limit without a '\n', so a reader stops there
// instead of reading the rest of it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

namespace tc::process {

//! The longest line an engine may write, and `tapecheck serve` read (docs/engine-protocol.md §5).
inline constexpr std::size_t kMaxLine = std::size_t{256} << 20;

class LineBuffer {
 public:
  enum class Next { line, none, tooLong };

  LineBuffer() = default;
  //! A buffer moved from is empty.
  LineBuffer(LineBuffer&& other) noexcept { *this = std::move(other); }
  LineBuffer& operator=(LineBuffer&& other) noexcept {
    text_ = std::exchange(other.text_, std::string());
    start_ = std::exchange(other.start_, 0), searched_ = std::exchange(other.searched_, 0);
    return *this;
  }

  //! How many bytes a reader may read next for a line of at most `maxLine` bytes: up to the first
  //! byte past the limit, which tells a line over it.
  std::size_t room(std::size_t maxLine) const { return held() > maxLine ? 0 : plusOne(maxLine - held()); }

  //! Appends bytes read (at most room(maxLine) of them). The space of lines already taken is reused
  //! once it is half the buffer; the buffer grows by doubling, but never past what a line of
  //! `maxLine` bytes needs (std::string's own growth would double a 256 MiB buffer to 512 MiB for
  //! its last byte).
  void append(const char* bytes, std::size_t count, std::size_t maxLine) {
    if (start_ > 0 && start_ >= text_.size() / 2) {
      text_.erase(0, start_);
      searched_ -= start_, start_ = 0;
    }
    const std::size_t needed = text_.size() + count;
    if (needed > text_.capacity()) {
      std::string larger;
      const std::size_t most = start_ + std::min(plusOne(maxLine), SIZE_MAX - start_);
      larger.reserve(std::max(needed, std::min(2 * text_.capacity(), most)));
      larger.append(text_);
      text_.swap(larger);
    }
    text_.append(bytes, count);
  }

  //! Takes the next whole line (without its '\n') into `line`: `line`; `none` when no whole line is
  //! held yet; `tooLong` when the next line is, or already holds, more than `maxLine` bytes.
  Next take(std::string& line, std::size_t maxLine) {
    const void* newline = std::memchr(text_.data() + searched_, '\n', text_.size() - searched_);
    if (!newline) {
      searched_ = text_.size();
      return held() > maxLine ? Next::tooLong : Next::none;
    }
    const std::size_t end = static_cast<std::size_t>(static_cast<const char*>(newline) - text_.data());
    if (end - start_ > maxLine) return Next::tooLong;
    if (start_ == 0 && end + 1 == text_.size()) {  // the line is the whole buffer: moved, not copied
      line = std::move(text_);
      line.pop_back();
      text_ = std::string();
      searched_ = 0;
      return Next::line;
    }
    line.assign(text_, start_, end - start_);
    start_ = searched_ = end + 1;
    if (start_ == text_.size()) text_.clear(), start_ = searched_ = 0;
    return Next::line;
  }

  //! The bytes held after the lines taken (a last line without its '\n'); the buffer is then empty.
  std::string rest() {
    std::string out = text_.substr(start_);
    text_.clear(), start_ = searched_ = 0;
    return out;
  }

  //! How many bytes are held after the lines taken.
  std::size_t held() const { return text_.size() - start_; }

 private:
  // n + 1, or n when that is SIZE_MAX (a limit of SIZE_MAX is no limit).
  static std::size_t plusOne(std::size_t n) { return n == SIZE_MAX ? n : n + 1; }

  std::string text_;
  std::size_t start_ = 0;     // where the next line starts
  std::size_t searched_ = 0;  // text_[start_, searched_) holds no '\n'
};

}  // namespace tc::process
