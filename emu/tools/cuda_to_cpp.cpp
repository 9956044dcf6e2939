/**
 * \file cuda_to_cpp.cpp
 * \brief Build step of the emulator: turns a stage's .cu file into C++ the host compiler takes.
 *
 *   emu_cuda_to_cpp IN.cu OUT.cpp SHOWN_PATH
 *
 * Only two things in a stage file are not C++, and only those are rewritten; every other
 * character is copied, and no line is added or removed, so compiler messages, the emulator's
 * diagnostics and ThreadSanitizer's reports name the original file and line (the output
 * starts with `#line 1 "SHOWN_PATH"`).
 *
 *   kernel<<<grid, block, shmem, stream>>>(args);
 *       becomes  kernel*::emu::launch_config("kernel", FILE, LINE, grid, block, shmem, stream)(args);
 *       (emu_kernel.h overloads `*` for a kernel and a pending launch; the kernel expression
 *       before `<<<` is left alone, so templates and namespaces work).
 *   __shared__ T name[N];  /  extern __shared__ T name[];      (inside a function)
 *       become, on the same line,
 *         static const char emu_shared_site_name = 0;
 *         typename ::emu::shared_decl<T [N]>::type name = ::emu::shared_decl<T [N]>::make(...);
 *       /  ::emu::shared_view<T> name = ::emu::extern_shared<T>("name", __FILE__);
 *       (written out, not as macros: the stage file sees no emulator macro; [[maybe_unused]]
 *       after each name, since nvcc says nothing of an extern __shared__ array a skeleton
 *       declares and does not use yet, and g++ would), so every block
 *       gets its own shared memory, and each later `name[` in that scope becomes
 *       `name(__LINE__)[`: an index outside the array is reported with its line. Other uses of
 *       a shared array's name become the array's pointer or size (see identifier()).
 *
 * Comments, string and character literals and preprocessor lines are copied untouched.
 * Shapes it does not recognise (several names in one declaration, shared memory at file
 * scope) are left as they are; emu_kernel.h then treats `__shared__` as `static`, which is
 * right for the emulator's one-block-at-a-time runs but shares the array between blocks.
 */
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/** A shared array's name and the brace depth of the scope that declared it. */
struct SharedName {
    std::string name;
    int depth;
    enum Kind { SCALAR, ARRAY, EXTERN } kind;
};

class Rewriter {
public:
    explicit Rewriter(const std::string &text) : in_(text) {}

    std::string run()
    {
        while (pos_ < in_.size()) {
            char c = in_[pos_];
            if (c == '/' && peek(1) == '/') {
                copy_until_newline();
            } else if (c == '/' && peek(1) == '*') {
                copy_block_comment();
            } else if (c == '"' || c == '\'') {
                copy_literal(c);
            } else if (c == '#' && at_line_start()) {
                copy_preprocessor_line();
            } else if (c == '<' && peek(1) == '<' && peek(2) == '<') {
                open_launch();
            } else if (c == '>' && peek(1) == '>' && peek(2) == '>' && launch_depth_ >= 0 &&
                       paren_ == launch_depth_) {
                out_ += ')';
                pos_ += 3;
                launch_depth_ = -1;
            } else if (is_ident_start(c)) {
                identifier();
            } else {
                if (c == '(' || c == '[')
                    paren_++;
                else if (c == ')' || c == ']')
                    paren_--;
                else if (c == '{')
                    brace_++;
                else if (c == '}')
                    close_brace();
                out_ += c;
                pos_++;
            }
        }
        return out_;
    }

private:
    char peek(size_t k) const { return pos_ + k < in_.size() ? in_[pos_ + k] : '\0'; }

    bool at_line_start() const
    {
        for (size_t k = out_.size(); k-- > 0;) {
            if (out_[k] == '\n')
                return true;
            if (out_[k] != ' ' && out_[k] != '\t')
                return false;
        }
        return true;
    }

    void copy_until_newline()
    {
        while (pos_ < in_.size() && in_[pos_] != '\n')
            out_ += in_[pos_++];
    }

    void copy_block_comment()
    {
        size_t end = in_.find("*/", pos_ + 2);
        end = end == std::string::npos ? in_.size() : end + 2;
        out_.append(in_, pos_, end - pos_);
        pos_ = end;
    }

    void copy_literal(char quote)
    {
        out_ += in_[pos_++];
        while (pos_ < in_.size() && in_[pos_] != quote && in_[pos_] != '\n') {
            if (in_[pos_] == '\\' && pos_ + 1 < in_.size())
                out_ += in_[pos_++];
            out_ += in_[pos_++];
        }
        if (pos_ < in_.size())
            out_ += in_[pos_++];
    }

    void copy_preprocessor_line()
    {
        while (pos_ < in_.size() && in_[pos_] != '\n') {
            if (in_[pos_] == '\\' && peek(1) == '\n') {
                out_ += "\\\n";
                pos_ += 2;
                continue;
            }
            out_ += in_[pos_++];
        }
    }

    /* The kernel's name, for messages: the identifier (and template arguments) before <<<. */
    std::string kernel_name() const
    {
        size_t end = out_.size();
        while (end > 0 && std::isspace(static_cast<unsigned char>(out_[end - 1])))
            end--;
        size_t begin = end;
        if (begin > 0 && out_[begin - 1] == '>') {
            int depth = 0;
            while (begin > 0) {
                char c = out_[--begin];
                if (c == '>')
                    depth++;
                else if (c == '<' && --depth == 0)
                    break;
                else if (c == ';' || c == '{' || c == '}')
                    return "kernel";
            }
        }
        while (begin > 0 && (is_ident_char(out_[begin - 1]) || out_[begin - 1] == ':'))
            begin--;
        std::string name = out_.substr(begin, end - begin);
        std::string clean;
        for (char c : name)
            if (c != '\n' && c != '"' && c != '\\')
                clean += c;
        return clean.empty() ? "kernel" : clean;
    }

    void open_launch()
    {
        std::string name = kernel_name();
        out_ += "*::emu::launch_config(\"" + name + "\", __FILE__, __LINE__, ";
        pos_ += 3;
        launch_depth_ = paren_;
    }

    void close_brace()
    {
        brace_--;
        while (!shared_.empty() && shared_.back().depth > brace_)
            shared_.pop_back();
    }

    /** The innermost shared variable called \p word, or null. */
    const SharedName *shared_name(const std::string &word) const
    {
        for (size_t k = shared_.size(); k-- > 0;)
            if (shared_[k].name == word)
                return &shared_[k];
        return nullptr;
    }

    /** The first character after position \p k of the input that is not a space. */
    char next_significant(size_t k) const
    {
        while (k < in_.size() && std::isspace(static_cast<unsigned char>(in_[k])))
            k++;
        return k < in_.size() ? in_[k] : '\0';
    }

    /** Whether the output (before the word just copied) ends with `sizeof` and, if \p paren,
     *  an opening parenthesis after it. */
    bool after_sizeof(size_t word_size, bool paren) const
    {
        size_t k = out_.size() - word_size;
        auto skip_space = [&]() {
            while (k > 0 && std::isspace(static_cast<unsigned char>(out_[k - 1])))
                k--;
        };
        skip_space();
        if (paren) {
            if (k == 0 || out_[k - 1] != '(')
                return false;
            k--;
            skip_space();
        }
        static const std::string keyword = "sizeof";
        return k >= keyword.size() && out_.compare(k - keyword.size(), keyword.size(), keyword) == 0 &&
               (k == keyword.size() || !is_ident_char(out_[k - keyword.size() - 1]));
    }

    /*
     * A use of a shared array, which is a checked view (emu_kernel.h), not an array:
     *   name[i]         -> name(__LINE__)[i]       the index is checked, with its line
     *   sizeof(name)    -> sizeof(typename decltype(name)::array_type)    the array's size,
     *   sizeof name     -> sizeof (typename decltype(name)::array_type)   as on a GPU
     *   name elsewhere  -> name.data               the array as a pointer, as it decays on a
     *                                              GPU: casts (reinterpret_cast<int4 *>(name)),
     *                                              arithmetic, arguments
     * A scalar __shared__ variable is a reference: nothing to rewrite.
     */
    void identifier()
    {
        size_t start = pos_;
        while (pos_ < in_.size() && is_ident_char(in_[pos_]))
            pos_++;
        std::string word = in_.substr(start, pos_ - start);
        if (word == "__shared__" && brace_ > 0 && shared_declaration())
            return;
        out_ += word;
        const SharedName *shared = shared_name(word);
        if (!shared || shared->kind == SharedName::SCALAR)
            return;
        char before = previous_significant_before(word);
        if (before == '.' || before == '>' || before == ':')
            return; /* a member or a qualified name that happens to have the same name */
        char after = next_significant(pos_);
        if (after == '[') {
            out_ += "(__LINE__)";
        } else if (shared->kind == SharedName::ARRAY && after == ')' && after_sizeof(word.size(), true)) {
            out_.erase(out_.size() - word.size());
            out_ += "typename decltype(" + word + ")::array_type";
        } else if (shared->kind == SharedName::ARRAY && after_sizeof(word.size(), false)) {
            out_.erase(out_.size() - word.size());
            out_ += "(typename decltype(" + word + ")::array_type)";
        } else if (after != '(' && after != '.' && !(after == '-' && peek_after(pos_, '>'))) {
            out_ += ".data";
        }
    }

    /** Whether the first significant character after \p k is followed by \p c. */
    bool peek_after(size_t k, char c) const
    {
        while (k < in_.size() && std::isspace(static_cast<unsigned char>(in_[k])))
            k++;
        return k + 1 < in_.size() && in_[k + 1] == c;
    }

    char previous_significant_before(const std::string &word) const
    {
        for (size_t k = out_.size() - word.size(); k-- > 0;)
            if (!std::isspace(static_cast<unsigned char>(out_[k])))
                return out_[k];
        return '\0';
    }

    /* Called just after the word __shared__ inside a function. Rewrites the declaration and
     * returns true, or returns false (nothing consumed) for a shape it does not know. */
    bool shared_declaration()
    {
        size_t semicolon = in_.find(';', pos_);
        if (semicolon == std::string::npos)
            return false;
        std::string decl = in_.substr(pos_, semicolon - pos_);
        /* one name, no initialiser, no comment or string inside; the sizes may be expressions
         * (`[2 * (blockSize / 32)]`) */
        if (decl.find_first_of(",={}\"'#") != std::string::npos || decl.find("//") != std::string::npos ||
            decl.find("/*") != std::string::npos)
            return false;
        size_t bracket = decl.find('[');
        std::string head = decl.substr(0, bracket == std::string::npos ? decl.size() : bracket);
        std::string dims = bracket == std::string::npos ? "" : decl.substr(bracket);
        if (head.find_first_of("()/") != std::string::npos)
            return false;
        size_t name_end = head.find_last_not_of(" \t\n");
        if (name_end == std::string::npos || !is_ident_char(head[name_end]))
            return false;
        size_t name_begin = name_end + 1;
        while (name_begin > 0 && is_ident_char(head[name_begin - 1]))
            name_begin--;
        std::string name = head.substr(name_begin, name_end + 1 - name_begin);
        std::string type = head.substr(0, name_begin);
        if (type.find_first_not_of(" \t\n") == std::string::npos || !is_ident_start(name[0]))
            return false;

        /* "extern" (and a stray "static") before __shared__ belong to the declaration. */
        bool is_extern = false;
        for (const char *keyword : {"extern", "static"}) {
            size_t end = out_.find_last_not_of(" \t");
            std::string kw = keyword;
            if (end != std::string::npos && end + 1 >= kw.size() &&
                out_.compare(end + 1 - kw.size(), kw.size(), kw) == 0 &&
                (end + 1 == kw.size() || !is_ident_char(out_[end - kw.size()]))) {
                out_.erase(end + 1 - kw.size());
                is_extern = is_extern || kw == "extern";
            }
        }
        std::string newlines;
        for (char c : decl)
            if (c == '\n')
                newlines += '\n';
        std::string flat_type = flatten(type), flat_dims = flatten(dims);
        if (is_extern) {
            std::string inner = flat_dims;
            inner.erase(std::remove_if(inner.begin(), inner.end(), ::isspace), inner.end());
            if (inner != "[]")
                return false;
            out_ += "::emu::shared_view<" + flat_type + "> " + name + " [[maybe_unused]] = ::emu::extern_shared<" +
                    flat_type + ">(\"" + name + "\", __FILE__)" + newlines;
        } else {
            std::string decl_type = flat_type + " " + flat_dims;
            out_ += "static const char emu_shared_site_" + name + " = 0; typename ::emu::shared_decl<" + decl_type +
                    ">::type " + name + " [[maybe_unused]] = ::emu::shared_decl<" + decl_type +
                    ">::make(&emu_shared_site_" + name + ", \"" + name + "\", __FILE__)" + newlines;
        }
        pos_ = semicolon; /* the ';' is copied by the main loop */
        shared_.push_back({name, brace_,
                           is_extern ? SharedName::EXTERN
                                     : (dims.find('[') != std::string::npos ? SharedName::ARRAY : SharedName::SCALAR)});
        return true;
    }

    static std::string flatten(const std::string &text)
    {
        std::string out;
        for (char c : text)
            out += (c == '\n' || c == '\t') ? ' ' : c;
        size_t b = out.find_first_not_of(' '), e = out.find_last_not_of(' ');
        return b == std::string::npos ? "" : out.substr(b, e + 1 - b);
    }

    const std::string &in_;
    std::string out_;
    size_t pos_ = 0;
    int paren_ = 0;
    int brace_ = 0;
    int launch_depth_ = -1;
    std::vector<SharedName> shared_;
};

} // namespace

int main(int argc, char **argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s IN.cu OUT.cpp SHOWN_PATH\n", argv[0]);
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "emu_cuda_to_cpp: cannot read %s\n", argv[1]);
        return 1;
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::string text = buffer.str();
    std::string body = Rewriter(text).run();
    std::ofstream out(argv[2], std::ios::binary);
    out << "#line 1 \"" << argv[3] << "\"\n" << body;
    if (!out) {
        std::fprintf(stderr, "emu_cuda_to_cpp: cannot write %s\n", argv[2]);
        return 1;
    }
    return 0;
}
