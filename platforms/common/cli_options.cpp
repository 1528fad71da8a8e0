#include "platforms/common/cli_options.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "model/core/error.h"

namespace oonic::cli {

namespace {

// Help in oonic's layout: "usage: oonic replay TRACE [options]", the command's
// description, its arguments and options as defined, its commands, the footer.
class HelpFormatter : public CLI::Formatter {
 public:
  HelpFormatter() { column_width(24); }

  void summary(const CLI::App* app, std::string s) { summaries_[app] = std::move(s); }

  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode) const override {
    std::ostringstream out;
    out << "usage: " << usage(app) << "\n";
    if (!app->get_description().empty()) out << "\n" << app->get_description() << "\n";
    auto pos = app->get_options([](const CLI::Option* o) { return o->get_positional(); });
    auto opts = app->get_options([](const CLI::Option* o) { return o->nonpositional(); });
    if (!pos.empty()) out << make_group("arguments", true, pos);
    if (!opts.empty()) out << make_group("options", false, opts);
    auto subs = app->get_subcommands([](const CLI::App*) { return true; });
    if (!subs.empty()) {
      out << "\ncommands:\n";
      for (const CLI::App* sub : subs) {
        auto it = summaries_.find(sub);
        CLI::detail::format_help(out, sub->get_name(), it == summaries_.end() ? "" : it->second,
                                 get_column_width());
      }
      out << "\n`" << usage_path(app) << " COMMAND --help` for each command.\n";
    }
    if (!app->get_footer().empty()) out << "\n" << app->get_footer() << "\n";
    return out.str();
  }

  std::string make_option_opts(const CLI::Option* opt) const override {
    const std::string& t = opt->get_option_text();
    if (t.empty()) return "";
    return (t[0] == '[' ? "" : " ") + t;
  }

  std::string make_option_name(const CLI::Option* opt, bool positional) const override {
    std::string n = positional ? opt->get_name(true, false) : opt->get_name(false, true);
    // A flag's default value ("--vcd{*}") is CLI11's business, not the reader's.
    for (auto b = n.find('{'); b != std::string::npos; b = n.find('{'))
      n.erase(b, n.find('}', b) - b + 1);
    return n;
  }

 private:
  static std::string usage_path(const CLI::App* app) {
    return app->get_parent() ? usage_path(app->get_parent()) + " " + app->get_name() : "oonic";
  }
  static std::string usage(const CLI::App* app) {
    std::string u = usage_path(app);
    if (!app->get_subcommands([](const CLI::App*) { return true; }).empty())
      return u + " COMMAND [ARGS]";
    for (const CLI::Option* o :
         app->get_options([](const CLI::Option* o) { return o->get_positional(); }))
      u += " " +
           (o->get_required() ? o->get_name(true, false) : "[" + o->get_name(true, false) + "]");
    auto opts = app->get_options([](const CLI::Option* o) { return o->nonpositional(); });
    if (opts.size() > 1) u += " [options]";  // more than --help
    return u;
  }

  std::map<const CLI::App*, std::string> summaries_;
};

std::shared_ptr<HelpFormatter> formatter() {
  static auto f = std::make_shared<HelpFormatter>();
  return f;
}

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

}  // namespace

std::shared_ptr<CLI::FormatterBase> help_formatter() {
  return formatter();
}

std::string path(const CLI::App* app) {
  if (!app || !app->get_parent()) return "";
  std::string up = path(app->get_parent());
  return up.empty() ? app->get_name() : up + " " + app->get_name();
}

void fail(const CLI::App* app, const std::string& what) {
  std::string p = path(app);
  throw Error(msg::kCli, (p.empty() ? "" : p + ": ") + what +
                             (p.empty() ? " (see oonic --help)" : " (see oonic " + p + " --help)"));
}

CLI::App* add_command(CLI::App& parent, const std::string& name, const std::string& summary,
                      const std::string& description, const std::string& footer) {
  CLI::App* app = parent.add_subcommand(name, description);
  app->formatter(formatter());
  formatter()->summary(app, summary);
  app->footer(footer);  // not the parent's: CLI11 copies it into a new command
  app->set_help_flag("-h,--help", "this text");
  // An option given twice: the last one counts, as a shell user expects when
  // appending to a command. Lists (--set) keep every occurrence.
  app->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  return app;
}

namespace {

template <class T>
CLI::Option* add_uint_impl(CLI::App* app, const std::string& name, T& out, const std::string& text,
                           const std::string& desc, uint64_t min, uint64_t max,
                           NumberSuffix suffix) {
  return app
      ->add_option_function<std::string>(
          name,
          [app, name, &out, min, max, suffix](const std::string& v) {
            std::optional<uint64_t> x = parse_uint(v, suffix);
            if (!x) fail(app, name + " " + quoted(v) + ": expected " + number_syntax(suffix));
            if (*x < min || *x > max) {
              std::string range = max == std::numeric_limits<uint64_t>::max()
                                      ? "at least " + std::to_string(min)
                                      : std::to_string(min) + " .. " + std::to_string(max);
              fail(app, name + " " + quoted(v) + ": out of range (" + range + ")");
            }
            out = static_cast<T>(*x);
          },
          desc)
      ->option_text(text);
}

}  // namespace

CLI::Option* add_uint(CLI::App* app, const std::string& name, uint64_t& out,
                      const std::string& text, const std::string& desc, uint64_t min, uint64_t max,
                      NumberSuffix suffix) {
  return add_uint_impl(app, name, out, text, desc, min, max, suffix);
}

CLI::Option* add_uint(CLI::App* app, const std::string& name, uint32_t& out,
                      const std::string& text, const std::string& desc, uint64_t min, uint64_t max,
                      NumberSuffix suffix) {
  return add_uint_impl(app, name, out, text, desc, min,
                       std::min<uint64_t>(max, std::numeric_limits<uint32_t>::max()), suffix);
}

CLI::Option* add_real(CLI::App* app, const std::string& name, double& out, const std::string& text,
                      const std::string& desc, double lo, double hi, bool hi_open) {
  return app
      ->add_option_function<std::string>(
          name,
          [app, name, &out, lo, hi, hi_open](const std::string& v) {
            char* end = nullptr;
            double x = std::strtod(v.c_str(), &end);
            if (v.empty() || *end || !std::isfinite(x) || !(x >= lo) ||
                (hi_open ? !(x < hi) : !(x <= hi))) {
              std::ostringstream r;
              r << "[" << lo << ", " << hi << (hi_open ? ")" : "]");
              fail(app, name + " " + quoted(v) + ": expected a number in " + r.str());
            }
            out = x;
          },
          desc)
      ->option_text(text);
}

CLI::Option* add_choice(CLI::App* app, const std::string& name, std::string& out,
                        const std::vector<std::string>& choices, const std::string& desc) {
  std::string text, words;
  for (size_t i = 0; i < choices.size(); ++i) {
    text += (i ? "|" : "") + choices[i];
    words += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  }
  return app
      ->add_option_function<std::string>(
          name,
          [app, name, &out, choices, words](const std::string& v) {
            if (std::find(choices.begin(), choices.end(), v) == choices.end())
              fail(app, name + " " + quoted(v) + ": expected " + words);
            out = v;
          },
          desc)
      ->option_text(text);
}

CLI::Option* add_text(CLI::App* app, const std::string& name, std::string& out,
                      const std::string& text, const std::string& desc) {
  return app->add_option(name, out, desc)->option_text(text);
}

CLI::Option* add_list(CLI::App* app, const std::string& name, std::vector<std::string>& out,
                      const std::string& text, const std::string& desc) {
  return app
      ->add_option_function<std::string>(
          name,
          [app, name, &out](const std::string& v) {
            out.clear();
            std::stringstream ss(v);
            for (std::string item; std::getline(ss, item, ',');)
              if (!item.empty()) out.push_back(item);
            if (out.empty()) fail(app, name + " " + quoted(v) + ": empty list");
          },
          desc)
      ->option_text(text);
}

CLI::Option* add_flag(CLI::App* app, const std::string& name, bool& out, const std::string& desc) {
  return app->add_flag(name, out, desc)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

CLI::Option* add_seed(CLI::App* app, uint64_t& seed, const std::string& desc) {
  return add_uint(app, "--seed", seed, "N", desc + " (default 1; decimal or 0x hex)");
}

CLI::Option* add_sets(CLI::App* app, std::vector<std::string>& sets, const std::string& desc) {
  return app->add_option("--set", sets, desc)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->option_text("KEY=VALUE");
}

void add_vcd(CLI::App* app, bool& vcd, std::string& groups, uint64_t& from, uint64_t& to,
             const std::string& desc) {
  // A flag that may carry a value: "--vcd" or "--vcd=rx,dma", never the next word
  // (that is the TRACE). The sink lives as long as the option, in its callback.
  auto sink = std::make_shared<std::string>();
  app->add_flag("--vcd{*}", *sink, desc)
      ->each([sink, &vcd, &groups](const std::string& v) {
        vcd = true;
        groups = v == "*" ? "" : v;
      })
      ->option_text("[=GROUPS]");
  app->add_option_function<std::string>(
         "--vcd-window",
         [app, &from, &to](const std::string& w) {
           auto c = w.find(':');
           std::optional<uint64_t> a, b;
           if (c != std::string::npos)
             a = parse_uint(w.substr(0, c)), b = parse_uint(w.substr(c + 1));
           if (!a || !b || *a > *b)
             fail(app, "--vcd-window " + quoted(w) + ": expected FROM:TO cycles, FROM <= TO");
           from = *a, to = *b;
         },
         "only cycles A..B in waves.vcd")
      ->option_text("A:B");
}

CLI::Option* add_positional(CLI::App* app, const std::string& name, std::string& out,
                            const std::string& desc, bool required) {
  CLI::Option* o = app->add_option(name, out, desc);
  if (required) o->required();
  return o;
}

}  // namespace oonic::cli
