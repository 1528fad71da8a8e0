#include "platforms/cli/cli.h"

#include <cstdio>
#include <string>
#include <vector>

#include "model/core/error.h"
#include "platforms/compare/compare.h"
#include "platforms/experiments/bitmap_compare.h"
#include "platforms/trace/trace_tools.h"

namespace oonic::cli {

namespace {

const char* kIntro =
    "oonic is a cycle-accurate SystemC/TLM-2.0 model of an out-of-order RDMA NIC\n"
    "(RoCEv2 RC; ORNIC's RX/Control/TX planes).";

const char* kExit =
    "Numbers: decimal or 0x hex; sizes may end in K, M or G (2^10, 2^20, 2^30).\n"
    "exit status: 0 done, 1 a run's scoreboard failed or it did not finish,\n"
    "             2 bad input (the message names the file, line, key or record)";

std::string shell_quote(const std::string& x) {
  bool plain = !x.empty() && x.find_first_of(" \t'\"\\$`#") == std::string::npos;
  return plain ? x : "'" + x + "'";
}

// The command that was being parsed when parsing stopped: the deepest one given.
CLI::App* deepest(CLI::App* app) {
  for (;;) {
    auto subs = app->get_subcommands();
    if (subs.empty()) return app;
    app = subs.front();
  }
}

CLI::App* find_command(CLI::App* app, const std::vector<std::string>& words) {
  for (const std::string& w : words) {
    CLI::App* next = nullptr;
    for (CLI::App* s : app->get_subcommands([](const CLI::App*) { return true; }))
      if (s->get_name() == w) next = s;
    if (!next) return nullptr;
    app = next;
  }
  return app;
}

bool has_commands(const CLI::App* app) {
  return !app->get_subcommands([](const CLI::App*) { return true; }).empty();
}

// CLI11's message, said as oonic says it: which command, which option, what is wrong.
[[noreturn]] void translate(CLI::App* root, const CLI::ParseError& e) {
  CLI::App* at = deepest(root);
  std::string m = e.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    std::vector<std::string> extra = at->remaining();
    const std::string word = extra.empty() ? m : extra.front();
    if (!word.empty() && word[0] == '-' && word != "-") fail(at, "unknown option '" + word + "'");
    if (has_commands(at)) fail(at, "unknown command '" + word + "'");
    auto pos = at->get_options([](const CLI::Option* o) { return o->get_positional(); });
    if (pos.size() == 1) {
      fail(at, "more than one " + pos.front()->get_name() + " given ('" +
                   pos.front()->as<std::string>() + "' and '" + word + "')");
    }
    fail(at, "unexpected argument '" + word + "'");
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e)) {
    const std::string tail = " is required";
    if (m.size() > tail.size() && m.compare(m.size() - tail.size(), tail.size(), tail) == 0) {
      std::string what = m.substr(0, m.size() - tail.size());
      fail(at, "no " + what + " given");
    }
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    auto colon = m.find(':');
    std::string opt = m.substr(0, colon);
    if (m.find("required") != std::string::npos && m.find("missing") != std::string::npos)
      fail(at, opt + " needs a value");
    if (m.find("At Most") != std::string::npos) fail(at, opt + " given more than once");
  }
  if (!m.empty()) m[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(m[0])));
  fail(at, m);
}

std::string help_of(const CLI::App* app) {
  return app->get_formatter()->make_help(app, app->get_name(), CLI::AppFormatMode::Normal);
}

// `oonic help [COMMAND...]`: listed as a command; answered before parsing,
// because its words are themselves command names.
void add_help(CLI::App& oonic) {
  CLI::App* h = add_command(oonic, "help", "this text; `oonic help COMMAND` for a command",
                            "The help of oonic, or of COMMAND (the same as `oonic COMMAND\n"
                            "--help`), e.g. `oonic help trace synth`.");
  h->allow_extras();
}

int help_command(CLI::App& oonic, std::vector<std::string> words) {
  if (words.size() == 1 && (words[0] == "-h" || words[0] == "--help")) words = {"help"};
  CLI::App* target = find_command(&oonic, words);
  if (!target) {
    std::string w;
    for (const auto& x : words) w += (w.empty() ? "" : " ") + x;
    fail(find_command(&oonic, {"help"}), "unknown command '" + w + "'");
  }
  std::fputs(help_of(target).c_str(), stdout);
  return 0;
}

}  // namespace

void build(CLI::App& oonic, Context& ctx) {
  oonic.name("oonic");
  oonic.description(kIntro);
  oonic.formatter(help_formatter());
  oonic.footer(kExit);
  oonic.set_help_flag("-h,--help", "this text");
  add_simulation_commands(oonic, ctx);
  compare::add_command(oonic, ctx);
  add_listing_commands(oonic, ctx);
  trace::add_command(oonic, ctx);
  experiments::add_command(oonic, ctx);
  add_help(oonic);
}

std::string help_text(const CLI::App& app) {
  return help_of(&app);
}

int dispatch(const std::vector<std::string>& args) {
  Context ctx;
  ctx.command_line = "oonic";
  for (const auto& a : args) ctx.command_line += " " + shell_quote(a);

  CLI::App oonic;
  build(oonic, ctx);
  if (!args.empty() && args[0] == "help")
    return help_command(oonic, std::vector<std::string>(args.begin() + 1, args.end()));

  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them so
  try {
    oonic.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    std::fputs(help_of(deepest(&oonic)).c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError& e) {
    translate(&oonic, e);
  }
  // A command made of commands (oonic, oonic trace) given alone: its help.
  CLI::App* at = deepest(&oonic);
  if (has_commands(at)) {
    std::fputs(help_of(at).c_str(), stdout);
    return 2;
  }
  return ctx.rc;
}

}  // namespace oonic::cli
