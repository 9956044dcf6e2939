/**
 * \file cuda_to_cpp.cpp
 * \brief Build step of the emulator: turns a stage's .cu file into C++ the host compiler takes.
 *
 *   emu_cuda_to_cpp IN.cu OUT.cpp SHOWN_PATH
 *
 * Only two things in a stage file are not C++, and only those are rewritten; every other
 * character is copied, and no line is added or removed, so compiler messages, the emulator's
 * diagnostics and ThreadSanitizer's reports name the original file and line (`#line`
 * directives). The result is then written twice, as nvcc's device and host passes see the
 * file (PassSplitter, below).
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
 * One thing is added, on the line where it belongs: after a file-scope `__device__` (or
 * `__managed__`) variable's declaration, in the device pass's copy (PassSplitter, below),
 *     static const ::emu::device_variable emu_device_variable_LINE_name = {__builtin_addressof(name), ...};
 *     static const ::emu::device_variable *emu_device_variable_LINE_name_at
 *         __attribute__((section("emu_device_variables"), used)) = __builtin_addressof(emu_device_variable_LINE_name);
 * constants (no code runs before main) that tell the emulator's trace the variable's address,
 * size and name (emu_kernel.h).
 *
 * Comments, string and character literals and preprocessor lines are copied untouched.
 * Shapes it does not recognise (several names in one declaration, shared memory at file
 * scope) are left as they are; emu_kernel.h then treats `__shared__` as `static`, which is
 * right for the emulator's one-block-at-a-time runs but shares the array between blocks.
 */
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

enum : char { CODE = 'c', COMMENT = '/', LITERAL = '"', DIRECTIVE = '#' };

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
            char kind = CODE;
            if (c == '/' && peek(1) == '/') {
                copy_until_newline();
                kind = COMMENT;
            } else if (c == '/' && peek(1) == '*') {
                copy_block_comment();
                kind = COMMENT;
            } else if (c == '"' || c == '\'') {
                copy_literal(c);
                kind = LITERAL;
            } else if (c == '#' && at_line_start()) {
                copy_preprocessor_line();
                kind = DIRECTIVE;
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
            kinds_.resize(out_.size(), kind); /* shrinks too, where identifier() took a word back */
        }
        return out_;
    }

    /** What each character of run()'s output is: CODE, COMMENT, LITERAL or DIRECTIVE. */
    const std::string &kinds() const { return kinds_; }

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
    std::string out_, kinds_;
    size_t pos_ = 0;
    int paren_ = 0;
    int brace_ = 0;
    int launch_depth_ = -1;
    std::vector<SharedName> shared_;
};

/*
 * The two passes of nvcc in one translation unit. nvcc preprocesses a .cu file twice: a host
 * pass without __CUDA_ARCH__, whose launchers and host functions the host compiler builds, and
 * a device pass with __CUDA_ARCH__ = 900, whose kernels and __device__ functions run on the
 * GPU. A launcher that tests __CUDA_ARCH__ takes its #else branch on a GPU; the emulator must
 * take the same one. So the rewritten file holds the stage file twice, both copies keeping
 * every line and every preprocessor directive (the preprocessor walks each with its own view):
 *
 *   copy 1, the device pass (nvcc_macros.h's __CUDA_ARCH__): types, constants, kernels,
 *     __device__ functions and variables, __host__ __device__ functions;
 *   copy 2, the host pass (__CUDA_ARCH__ and CUDA_DOUBLE_MATH_FUNCTIONS undefined, the file's
 *     own macros forgotten, then defined again by its directives), inside namespace
 *     emu_host_pass: host functions and variables, launchers, KIT_REGISTER_STAGE,
 *     __host__ __device__ functions again, constants again.
 *
 * Everything else in each copy is blanked (spaces; newlines and directives kept). Copy 2 sees
 * copy 1's kernels, types and __device__ variables by ordinary lookup (its namespace is inside
 * the global one; a named namespace reopened in copy 2 names its copy-1 twin with a
 * using-directive), and its own host-pass versions of a __host__ __device__ function or a
 * constant first, since they are declared in an inner scope. Copy 1 runs first, so a #include
 * first met in copy 2 is closed out of emu_host_pass. extern "C" names keep their linkage.
 *
 * A top-level declaration is sorted by the words before its body: __global__, __device__
 * (without __host__), __constant__, __managed__, __shared__ (or a macro of the file whose
 * definition holds them) make it device code; __host__ with __device__, or an unqualified
 * constexpr function or const variable, both; struct, class, union, enum, typedef, using,
 * static_assert and template specialisations of those, device (shared by both copies: one
 * type, as nvcc's two passes share one); any other function or variable, host. What one
 * translation unit cannot give: a class's member functions, and headers the stage file
 * includes, are compiled once, in the device pass's view.
 */
class PassSplitter {
public:
    enum Copy { DEVICE = 1, HOST = 2, BOTH = 3 };

    PassSplitter(const std::string &text, const std::string &kinds) : text_(text), kinds_(kinds)
    {
        collect_macros();
        split(0, text_.size());
    }

    /** The rewritten file: copy 1, the host pass's preamble, copy 2. */
    std::string result(const std::string &shown) const
    {
        std::string line = "#line 1 \"" + shown + "\"\n";
        std::string out = line + copy(DEVICE, shown);
        out += "\n#undef __CUDA_ARCH__\n#undef CUDA_DOUBLE_MATH_FUNCTIONS\n";
        for (const std::string &name : macro_names_)
            out += "#undef " + name + "\n";
        out += "namespace emu_host_pass {\n" + line + copy(HOST, shown) + "\n} // namespace emu_host_pass\n";
        return out;
    }

private:
    struct Piece {
        size_t begin, end;
        int copies;              /* DEVICE, HOST or BOTH */
        size_t attribute_at;     /* where `__attribute__((unused))` goes (npos: nowhere) */
        std::string using_scope; /* a reopened namespace: its copy-1 twin, for copy 2 */
        std::string registration = ""; /* a __device__ variable: its emu::device_variable entry, after it in copy 1 */
    };

    bool code(size_t k) const { return kinds_[k] == CODE; }

    /* ---- tokens of the code: identifiers, numbers and single punctuation characters ---- */
    size_t skip_space(size_t k, size_t end) const
    {
        while (k < end && (!code(k) || std::isspace(static_cast<unsigned char>(text_[k])))) {
            if (kinds_[k] == LITERAL)
                return k; /* a literal is a token (extern "C") */
            k++;
        }
        return k;
    }
    size_t token_end(size_t k, size_t end) const
    {
        if (kinds_[k] == LITERAL) {
            while (k < end && kinds_[k] == LITERAL)
                k++;
            return k;
        }
        if (is_ident_char(text_[k])) {
            while (k < end && code(k) && is_ident_char(text_[k]))
                k++;
            return k;
        }
        return k + 1;
    }

    /** The file's macros: their names (forgotten before copy 2) and those whose definition
     *  holds a CUDA qualifier (`#define DEVICE static __device__ __forceinline__`). */
    void collect_macros()
    {
        for (size_t k = 0; k < text_.size();) {
            if (kinds_[k] != DIRECTIVE) {
                k++;
                continue;
            }
            size_t end = k;
            while (end < text_.size() && kinds_[end] == DIRECTIVE)
                end++;
            std::string line = text_.substr(k, end - k);
            size_t at = line.find_first_not_of(" \t#");
            if (at != std::string::npos && line.compare(at, 6, "define") == 0) {
                size_t name = line.find_first_not_of(" \t", at + 6);
                size_t name_end = name;
                while (name_end < line.size() && is_ident_char(line[name_end]))
                    name_end++;
                if (name != std::string::npos && name_end > name) {
                    std::string macro = line.substr(name, name_end - name);
                    if (std::find(macro_names_.begin(), macro_names_.end(), macro) == macro_names_.end())
                        macro_names_.push_back(macro);
                    std::string words = qualifiers_in(line.substr(name_end));
                    if (!words.empty())
                        qualifier_macros_.push_back({macro, words});
                }
            }
            k = end;
        }
    }

    static std::string qualifiers_in(const std::string &text)
    {
        std::string words;
        for (const char *q : {"__global__", "__device__", "__host__", "__constant__", "__managed__", "__shared__"}) {
            size_t at = 0, n = std::strlen(q);
            while ((at = text.find(q, at)) != std::string::npos) {
                bool alone = (at == 0 || !is_ident_char(text[at - 1])) &&
                             (at + n == text.size() || !is_ident_char(text[at + n]));
                if (alone) {
                    words += std::string(" ") + q;
                    break;
                }
                at += n;
            }
        }
        return words;
    }

    /** The matching close of the bracket at \p k (code characters only), or \p end. */
    size_t matching(size_t k, size_t end) const
    {
        char open = text_[k], close = open == '{' ? '}' : open == '(' ? ')' : ']';
        int depth = 0;
        for (; k < end; k++) {
            if (!code(k))
                continue;
            if (text_[k] == open)
                depth++;
            else if (text_[k] == close && --depth == 0)
                return k;
        }
        return end;
    }

    /* Splits [begin, end) (file scope, or a namespace's or extern "C" block's inside) into
     * top-level pieces. */
    void split(size_t begin, size_t end)
    {
        size_t k = skip_space(begin, end);
        while (k < end) {
            std::vector<std::pair<size_t, size_t>> head; /* the tokens before a body or ';' */
            size_t start = k, piece_end = end, body = std::string::npos;
            bool done = false;
            while (k < end && !done) {
                size_t t_end = token_end(k, end);
                char c = text_[k];
                if (kinds_[k] == CODE && c == ';') {
                    piece_end = k + 1;
                    done = true;
                } else if (kinds_[k] == CODE && c == '}' && head.empty()) {
                    piece_end = k; /* the close of the scope being split (a stray one: left alone) */
                    done = true;
                    break;
                } else if (kinds_[k] == CODE && c == '{') {
                    if (body == std::string::npos && opens_scope(head)) {
                        size_t close = matching(k, end);
                        scope(start, k, close, end, head);
                        k = skip_space(close < end ? close + 1 : end, end);
                        head.clear();
                        start = k;
                        continue;
                    }
                    size_t close = matching(k, end);
                    if (body == std::string::npos)
                        body = k;
                    if (is_function(head) && body == k) {
                        piece_end = close < end ? close + 1 : end;
                        done = true;
                    }
                    k = close < end ? close + 1 : end;
                    k = skip_space(k, end);
                    continue;
                } else if (kinds_[k] == CODE && (c == '(' || c == '[')) {
                    size_t close = matching(k, end);
                    if (body == std::string::npos)
                        head.push_back({k, close < end ? close + 1 : end});
                    k = close < end ? close + 1 : end;
                    if (macro_statement(head, k, end)) {
                        piece_end = k;
                        done = true;
                    }
                    k = skip_space(k, end);
                    continue;
                } else if (body == std::string::npos) {
                    head.push_back({k, t_end});
                }
                k = skip_space(t_end, end);
            }
            if (start < piece_end)
                pieces_.push_back({start, piece_end, sort(head), attribute_place(head), "", registration(head)});
            k = skip_space(piece_end, end);
            if (k < end && text_[k] == '}' && kinds_[k] == CODE)
                return; /* the caller's scope closes here */
        }
    }

    std::string word(const std::pair<size_t, size_t> &t) const { return text_.substr(t.first, t.second - t.first); }

    /** `namespace [name]`, `inline namespace name`, `extern "C"` before a `{`. */
    bool opens_scope(const std::vector<std::pair<size_t, size_t>> &head) const
    {
        if (head.empty())
            return false;
        std::string first = word(head[0]);
        if (first == "inline" && head.size() > 1)
            first = word(head[1]);
        if (first == "namespace") {
            for (const auto &t : head) /* `namespace a::b`, attributes aside, but no `=` (an alias) */
                if (word(t) == "=")
                    return false;
            return true;
        }
        return first == "extern" && head.size() == 2 && kinds_[head[1].first] == LITERAL;
    }

    /** A namespace or extern "C" block: its opening and closing in both copies, its inside split. */
    void scope(size_t start, size_t open, size_t close, size_t end, const std::vector<std::pair<size_t, size_t>> &head)
    {
        std::string name;
        bool named = false;
        for (const auto &t : head) {
            std::string w = word(t);
            if (w == "namespace")
                named = true;
            else if (named && w != "inline" && (is_ident_start(w[0]) || w == ":"))
                name += w;
        }
        std::string path = scopes_.empty() ? "" : scopes_.back();
        if (!name.empty()) /* an anonymous namespace adds nothing: lookup sees through it */
            path += "::" + name;
        pieces_.push_back({start, open + 1, BOTH, std::string::npos, name.empty() ? std::string() : path});
        scopes_.push_back(path);
        split(open + 1, close);
        scopes_.pop_back();
        if (close < end)
            pieces_.push_back({close, close + 1, BOTH, std::string::npos, ""});
    }

    /** A file-scope macro call with no ';' after it (KIT_REGISTER_STAGE(name, launcher)): an
     *  upper-case name and its arguments, then a new line that starts another declaration. */
    bool macro_statement(const std::vector<std::pair<size_t, size_t>> &head, size_t k, size_t end) const
    {
        if (head.size() != 2)
            return false;
        std::string name = word(head[0]);
        if (name.size() < 2 || !std::isupper(static_cast<unsigned char>(name[0])))
            return false;
        for (char c : name)
            if (!(std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
                return false;
        bool new_line = false;
        size_t next = k;
        for (; next < end && (!code(next) || std::isspace(static_cast<unsigned char>(text_[next]))); next++)
            if (text_[next] == '\n')
                new_line = true;
        if (next >= end)
            return true;
        return new_line && (is_ident_start(text_[next]) || text_[next] == '}');
    }

    /** The head's words, with each macro of the file that holds a qualifier replaced by it. */
    std::vector<std::string> words(const std::vector<std::pair<size_t, size_t>> &head) const
    {
        std::vector<std::string> out;
        for (const auto &t : head) {
            std::string w = word(t);
            out.push_back(w);
            for (const auto &m : qualifier_macros_)
                if (m.first == w) {
                    std::istringstream extra(m.second);
                    std::string q;
                    while (extra >> q)
                        out.push_back(q);
                }
        }
        return out;
    }

    /** The head without a leading `template <...>` and attributes. */
    static size_t first_word(const std::vector<std::string> &w)
    {
        size_t k = 0;
        while (k < w.size()) {
            if (w[k] == "template" && k + 1 < w.size() && w[k + 1] == "<") {
                int depth = 0;
                for (k++; k < w.size(); k++) {
                    if (w[k] == "<")
                        depth++;
                    else if (w[k] == ">" && --depth == 0)
                        break;
                }
                k++;
            } else if (w[k] == "[" || (w[k].size() > 1 && w[k][0] == '[')) {
                k++;
            } else {
                break;
            }
        }
        return k;
    }

    bool is_type(const std::vector<std::string> &w) const
    {
        size_t k = first_word(w);
        if (k >= w.size())
            return false;
        static const char *const kinds[] = {"struct", "class", "union", "enum", "typedef", "using", "static_assert",
                                            "namespace", "friend"};
        for (const char *kind : kinds)
            if (w[k] == kind)
                return true;
        return w[k] == "template"; /* an explicit instantiation: `template struct X<1>;` */
    }

    /** Whether word \p k of the head is an initialiser's `=` (not part of an operator's name). */
    static bool assigns(const std::vector<std::string> &w, size_t k)
    {
        if (w[k] != "=" || k == 0 || w[k - 1] == "operator")
            return false;
        char before = w[k - 1][0];
        return is_ident_char(before) || before == '(' || before == '[';
    }

    /** Whether the head declares a function (a parameter list before any `=`). */
    bool is_function(const std::vector<std::pair<size_t, size_t>> &head) const
    {
        std::vector<std::string> w = words(head);
        if (is_type(w))
            return false;
        for (size_t k = first_word(w); k < w.size(); k++) {
            if (assigns(w, k))
                return false;
            if (w[k][0] == '(')
                return true;
        }
        return false;
    }

    int sort(const std::vector<std::pair<size_t, size_t>> &head) const
    {
        std::vector<std::string> w = words(head);
        auto has = [&](const char *q) { return std::find(w.begin(), w.end(), q) != w.end(); };
        if (has("__global__") || has("__constant__") || has("__managed__") || has("__shared__"))
            return DEVICE;
        if (has("__device__"))
            return has("__host__") ? BOTH : DEVICE;
        if (w.empty() || is_type(w))
            return DEVICE;
        if (is_function(head))
            return has("constexpr") ? BOTH : HOST; /* constexpr: callable from both, as nvcc lets kernels */
        bool declarator_paren = false;
        for (size_t k = first_word(w); k < w.size() && !assigns(w, k); k++)
            if (w[k][0] == '(')
                declarator_paren = true; /* a function pointer: a host variable */
        return (has("const") || has("constexpr")) && !declarator_paren ? BOTH : HOST;
    }

    /** A `__device__` (or `__managed__`) variable the head defines, named once: its
     *  emu::device_variable entry (emu_kernel.h), so that the trace names its accesses
     *  (docs/trace_format.md, space "device"); empty for anything else (a function, a type, an
     *  extern declaration, a template, a constexpr or __constant__ one, several names, a
     *  qualified name). It goes right after the declaration's `;`, on the same line, in the
     *  same scope and the same #if branch as the variable. */
    std::string registration(const std::vector<std::pair<size_t, size_t>> &head) const
    {
        std::vector<std::string> w = words(head);
        auto has = [&](const char *q) { return std::find(w.begin(), w.end(), q) != w.end(); };
        if (!(has("__device__") || has("__managed__")) || has("__host__") || has("__constant__") ||
            has("__shared__") || has("__global__") || has("extern") || has("constexpr") || has("template") ||
            is_type(w))
            return "";
        static const char *const attributes[] = {"__attribute__", "alignas", "__align__", "__declspec"};
        auto attribute = [&](const std::string &t) {
            return std::find(std::begin(attributes), std::end(attributes), t) != std::end(attributes);
        };
        std::string name, before_name;
        size_t at = 0;
        for (size_t k = 0; k < head.size(); k++) {
            std::string t = word(head[k]);
            if (t == "=")
                break;
            if (t[0] == '[') { /* an attribute before the name ([[maybe_unused]]), or the array's size */
                if (name.empty())
                    continue;
                break;
            }
            if (t[0] == '(') {
                if (k > 0 && attribute(word(head[k - 1])))
                    continue;
                return ""; /* a constructor's arguments, or a declarator in parentheses */
            }
            if (t == ",")
                return "";
            if (kinds_[head[k].first] == CODE && is_ident_start(t[0]) && !attribute(t)) {
                name = t;
                at = head[k].first;
                before_name = k > 0 ? word(head[k - 1]) : "";
            }
        }
        if (name.empty() || before_name == ":")
            return "";
        int line = 1 + (int)std::count(text_.begin(), text_.begin() + (long)at, '\n');
        /* the section holds pointers: 8 bytes each, never padded apart as a larger object may be */
        const std::string entry = "emu_device_variable_" + std::to_string(line) + "_" + name;
        return " static const ::emu::device_variable " + entry + " = {__builtin_addressof(" + name + "), sizeof(" +
               name + "), \"" + name + "\", __FILE__, " + std::to_string(line) + "}; static const ::emu::device_variable *" +
               entry + "_at __attribute__((section(\"emu_device_variables\"), used)) = &" + entry + ";";
    }

    /** A piece compiled in both copies may be unused in one: where to say so (after its first
     *  decl-specifier that g++ takes an attribute after), so neither copy warns. */
    size_t attribute_place(const std::vector<std::pair<size_t, size_t>> &head) const
    {
        for (const auto &t : head) {
            std::string w = word(t);
            if (w == "__host__" || w == "__device__" || w == "static" || w == "inline" || w == "constexpr")
                return t.second;
        }
        return std::string::npos;
    }

    /** Copy \p which of the file: the other pieces blanked, newlines and directives kept. */
    std::string copy(int which, const std::string &shown) const
    {
        std::string out = text_;
        std::vector<std::pair<size_t, std::string>> inserts;
        size_t covered = 0;
        for (const Piece &p : pieces_) {
            for (size_t k = covered; k < p.begin; k++) /* between pieces: spaces and comments */
                if (kinds_[k] == COMMENT || kinds_[k] == LITERAL)
                    out[k] = out[k] == '\n' ? '\n' : ' ';
            covered = p.end;
            if (!(p.copies & which)) {
                for (size_t k = p.begin; k < p.end; k++)
                    if (kinds_[k] != DIRECTIVE && out[k] != '\n')
                        out[k] = ' ';
                continue;
            }
            if (p.copies == BOTH && p.attribute_at != std::string::npos)
                inserts.push_back({p.attribute_at, " __attribute__((unused))"});
            if (which == DEVICE && !p.registration.empty())
                inserts.push_back({p.end, p.registration});
            if (which == HOST && !p.using_scope.empty())
                inserts.push_back({p.end, " using namespace " + p.using_scope + ";"});
        }
        if (which == HOST) /* a #include at file scope leaves emu_host_pass for its lines */
            for (size_t k = 0; k < text_.size(); k++)
                if (kinds_[k] == DIRECTIVE && (k == 0 || kinds_[k - 1] != DIRECTIVE) && at_file_scope(k) &&
                    is_include(k)) {
                    size_t line = 1 + std::count(text_.begin(), text_.begin() + k, '\n');
                    size_t line_end = text_.find('\n', k);
                    while (line_end != std::string::npos && line_end > 0 && text_[line_end - 1] == '\\')
                        line_end = text_.find('\n', line_end + 1);
                    size_t after = 1 + (line_end == std::string::npos
                                            ? line
                                            : std::count(text_.begin(), text_.begin() + line_end + 1, '\n'));
                    inserts.push_back({k, "} // namespace emu_host_pass\n#line " + std::to_string(line) + " \"" +
                                              shown + "\"\n"});
                    if (line_end != std::string::npos)
                        inserts.push_back({line_end + 1, "namespace emu_host_pass {\n#line " + std::to_string(after) +
                                                             " \"" + shown + "\"\n"});
                }
        std::stable_sort(inserts.begin(), inserts.end(),
                         [](const std::pair<size_t, std::string> &a, const std::pair<size_t, std::string> &b) {
                             return a.first < b.first;
                         });
        for (size_t i = inserts.size(); i-- > 0;)
            out.insert(inserts[i].first, inserts[i].second);
        return out;
    }

    bool is_include(size_t k) const
    {
        size_t at = text_.find_first_not_of(" \t#", k);
        return at != std::string::npos && text_.compare(at, 7, "include") == 0 && text_[text_.find('#', k)] == '#';
    }

    /** Whether position \p k lies outside every piece's body (between pieces or in a scope). */
    bool at_file_scope(size_t k) const
    {
        for (const Piece &p : pieces_)
            if (p.begin <= k && k < p.end)
                return false;
        return scope_depth_at(k) == 0;
    }

    int scope_depth_at(size_t k) const
    {
        int depth = 0;
        for (const Piece &p : pieces_) {
            if (p.begin > k)
                break;
            if (p.copies == BOTH && p.end - p.begin >= 1 && text_[p.end - 1] == '{' && kinds_[p.end - 1] == CODE)
                depth++;
            else if (p.copies == BOTH && p.end - p.begin == 1 && text_[p.begin] == '}')
                depth--;
        }
        return depth;
    }

    const std::string &text_;
    const std::string &kinds_;
    std::vector<Piece> pieces_;
    std::vector<std::string> scopes_;
    std::vector<std::string> macro_names_;
    std::vector<std::pair<std::string, std::string>> qualifier_macros_;
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
    Rewriter rewriter(text);
    std::string body = rewriter.run();
    PassSplitter passes(body, rewriter.kinds());
    std::ofstream out(argv[2], std::ios::binary);
    out << passes.result(argv[3]);
    if (!out) {
        std::fprintf(stderr, "emu_cuda_to_cpp: cannot write %s\n", argv[2]);
        return 1;
    }
    return 0;
}
