// The engine protocol's moving parts, below the command line: the JSON pull reader, answers read
// into tensors, an engine process exchanged with in order, through crashes and restarts, and a
// planned compile known again only for the very values it was planned with.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "adapters/process/engine_process.h"
#include "adapters/process/json_reader.h"
#include "adapters/process/process_engine.h"
#include "adapters/process/protocol.hpp"
#include "core/graph/builder.h"
#include "core/io/case_file.h"
#include "properties/engines/guarded_engine.h"

namespace tc::process {
namespace {

// A shell engine: a hello, then whatever `body` does with each request line in $line. (`exec`: the
// command has shell syntax, so tapecheck runs it under a shell of its own, which would report a
// signal as an exit status.)
std::string shellEngine(const std::string& body, const std::string& helloExtra = "") {
  return "exec sh -c 'echo \"{\\\"tapecheck_engine\\\": 1, \\\"profile\\\": {\\\"name\\\": \\\"sh\\\"}" + helloExtra +
         "}\"; while read -r line; do " + body + "; done'";
}

// Hangs on a request that mentions "hang"; answers the others at once.
const std::string kHangsOnHang = "case \"$line\" in *hang*) sleep 600;; esac; echo \"$line\"";

TEST(JsonReader, ReadsStringsWithEveryEscape) {
  JsonReader in(R"(["a\"b\\c\/d\b\f\n\r\t", "\u00e9\u20ac", "\ud83d\ude00"])");
  ASSERT_TRUE(in.beginArray());
  std::vector<std::string> strings;
  while (*in.nextElement()) strings.push_back(*in.string());
  ASSERT_TRUE(in.end());
  EXPECT_EQ(strings[0], "a\"b\\c/d\b\f\n\r\t");
  EXPECT_EQ(strings[1], "\xc3\xa9\xe2\x82\xac");
  EXPECT_EQ(strings[2], "\xf0\x9f\x98\x80");
}

TEST(JsonReader, RejectsWhatIsNotJson) {
  for (std::string text : {R"(["a" "b"])", R"(["\ud83d"])", R"(["\x"])", "[\"tab\there\"]", R"([01])", R"([1.])",
                           R"({"a" 1})", R"([1,])", R"("unterminated)"}) {
    JsonReader in(text);
    bool failed = false;
    if (text.front() == '"') {
      failed = !in.string();
    } else if (in.beginArray()) {
      for (;;) {
        auto next = in.nextElement();
        if (!next) { failed = true; break; }
        if (!*next) break;
        if (!in.skip()) { failed = true; break; }
      }
    } else if (in.beginObject()) {
      std::string key;
      failed = !in.nextKey(key) || !in.skip();
    }
    EXPECT_TRUE(failed || !in.end()) << text;
  }
}

TEST(JsonReader, BoundsNesting) {
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  JsonReader in(deep);
  EXPECT_FALSE(in.skip());
}

// Limits roomy enough for the answers below: four positions, 100 values a pack.
AnswerLimits roomy(std::size_t passes) { return AnswerLimits{passes, 4, 100}; }

TEST(DecodeAnswer, ReadsTensorsInAnyKeyOrder) {
  auto answer = decodeAnswer<double>(
      R"({"passes": [{"programs_run": 2, "gradients": [{"values": ["0x1p+1"], "shape": []}]}],
          "context": [{"shape": [2], "values": ["-0", "nan"]}], "id": 7})",
      7, roomy(1));
  ASSERT_TRUE(answer) << answer.error().message;
  ASSERT_EQ(answer->context.size(), 1u);
  EXPECT_TRUE(std::signbit(answer->context[0].values[0]));
  EXPECT_TRUE(std::isnan(answer->context[0].values[1]));
  ASSERT_TRUE(answer->passes[0]);
  EXPECT_EQ(answer->passes[0]->gradients[0].values[0], 2.0);
  EXPECT_EQ(answer->passes[0]->programsRun, 2u);
}

TEST(DecodeAnswer, NamesWhatIsWrong) {
  auto error = [](std::string_view line, std::size_t passes = 0) {
    auto answer = decodeAnswer<Rational>(line, 1, roomy(passes));
    return answer ? std::string("(accepted)") : answer.error().message;
  };
  EXPECT_EQ(error(R"({"id": 2, "context": []})"), "answer 1: \"id\" is 2 (answers come in request order)");
  EXPECT_EQ(error(R"({"context": []})"), "answer 1: no \"id\"");
  EXPECT_EQ(error(R"({"id": 1})"), "answer 1: missing \"context\" (or \"error\", \"unsupported\" or \"crashed\")");
  EXPECT_EQ(error(R"({"id": 1, "context": [{"shape": [2], "values": ["1"]}]})"),
            "answer 1: context[0]: shape [2] needs 2 values, got 1");
  EXPECT_EQ(error(R"({"id": 1, "context": [{"shape": [], "values": ["1/0"]}]})"),
            "answer 1: context[0].values[0]: '1/0' is not a number: zero denominator");
  EXPECT_EQ(error(R"({"id": 1, "context": [], "passes": []})", 1),
            "answer 1: \"passes\" must hold 1 results, one per requested pass, got 0");
  EXPECT_EQ(error(R"({"id": 1, "context": [], "extra": 1})"),
            "answer 1: unknown key 'extra'; an answer has id, context, passes, error, unsupported or crashed");
  for (const char* crash : {R"({"id": 1, "crashed": 11})", R"({"id": 1, "crashed": {"signal": 0}})",
                            R"({"id": 1, "crashed": {"status": 256}})", R"({"id": 1, "crashed": {"signal": 11, "status": 1}})",
                            R"({"id": 1, "crashed": {"core": 1}})"})
    EXPECT_EQ(error(crash), "answer 1: \"crashed\" must be {\"signal\": N} (1 to 64) or {\"status\": N} (0 to 255)") << crash;
  EXPECT_EQ(error(R"({"id": 1, "context": [], "crashed": {"status": 1}})"),
            "answer 1: an answer has one of \"context\", \"error\", \"unsupported\" and \"crashed\"");
  EXPECT_EQ(error(R"({"id": 1, "error": {"position": 3, "message": "no"}})"), "(accepted)");
}

// An answer holds no more than its case can need, and is refused as soon as it holds more, before
// what it holds is built: more tensors than positions, more pass results than passes asked, more
// values than the limit (counted as they are read, or declared by a shape read first), a key twice.
TEST(DecodeAnswer, RefusesMoreThanTheCaseCanNeedAsSoonAsItIsRead) {
  const AnswerLimits limits{1, 2, 5};
  auto error = [&](std::string_view line) {
    auto answer = decodeAnswer<Rational>(line, 3, limits);
    return answer ? std::string("(accepted)") : answer.error().message;
  };
  const std::string scalar = R"({"shape": [], "values": ["1"]})";
  EXPECT_EQ(error(R"({"id": 3, "context": [)" + scalar + "," + scalar + R"(], "passes": [{"gradients": []}]})"),
            "(accepted)");
  // The third tensor is refused before it is read: the rest of the line need not even be JSON.
  EXPECT_EQ(error(R"({"id": 3, "context": [)" + scalar + "," + scalar + ", @@@"),
            "answer 3: context: more tensors than the case's 2 positions");
  EXPECT_EQ(error(R"({"id": 3, "context": [], "passes": [{"gradients": []}, @@@)"),
            "answer 3: \"passes\" must hold 1 results, one per requested pass, got more");
  EXPECT_EQ(error(R"({"id": 3, "context": [{"values": ["1", "2", "3", "4", "5", "6", @@@)"),
            "answer 3: context[0].values: more values than the case can need (5 in a pack: twice its elements and "
            "4096 more)");
  EXPECT_EQ(error(R"({"id": 3, "context": [{"shape": [3], "values": ["1", "2", "3"]}, {"shape": [3], @@@)"),
            "answer 3: context[1].shape: more values than the case can need (5 in a pack: twice its elements and "
            "4096 more)");
  EXPECT_EQ(error(R"({"id": 3, "context": [], "passes": [{"gradients": [{"values": ["1", "2", "3", "4", "5", "6", @@@)"),
            "answer 3: passes[0].gradients[0].values: more values than the case can need (5 in a pack: twice its "
            "elements and 4096 more)");
  EXPECT_EQ(error(R"({"id": 3, "context": [], "context": [], "passes": [{"gradients": []}]})"),
            "answer 3: \"context\" twice");
  EXPECT_EQ(error(R"({"id": 3, "context": [{"shape": [], "shape": [], "values": ["1"]}], "passes": [{"gradients": []}]})"),
            "answer 3: context[0]: \"shape\" twice");
}

TEST(DecodeAnswer, TheLimitsComeFromTheCase) {
  auto builder = GraphBuilder<Rational>::create({Shape{3}});
  ASSERT_TRUE(builder);
  ASSERT_TRUE(builder->add(OpKind::sum, {0}));
  const Graph<Rational> graph = std::move(*builder).build();
  const AnswerLimits limits = answerLimits(graph, 2);
  EXPECT_EQ(limits.passes, 2u);
  EXPECT_EQ(limits.positions, 2u);
  EXPECT_EQ(limits.values, 2 * 4 + kAnswerValueSlack);
}

TEST(EngineProcess, AnswersComeBackInOrderWhateverOrderTheyAreReceivedIn) {
  EngineProcess engine(shellEngine("echo \"$line\""));
  auto tickets = engine.send({R"({"a":1})", R"({"a":2})", R"({"a":3})"});
  auto third = std::get<Answer>(engine.receive(tickets[2]));
  auto first = std::get<Answer>(engine.receive(tickets[0]));
  EXPECT_EQ(first.text, R"({"id":1,"a":1})");
  EXPECT_EQ(third.text, R"({"id":3,"a":3})");
  EXPECT_EQ(third.line, 4u);  // the hello is line 1
  engine.forget(tickets[1]);
  auto more = engine.exchange({R"({"a":4})"});
  EXPECT_EQ(std::get<Answer>(more[0]).text, R"({"id":4,"a":4})");
}

TEST(EngineProcess, ACrashFaultsTheRequestItHitAndTheRestAreSentAgain) {
  // Dies on the request that mentions "die"; a restarted engine answers the others.
  EngineProcess engine(shellEngine("case \"$line\" in *die*) kill -SEGV $$;; esac; echo \"$line\""));
  auto replies = engine.exchange({R"({"a":1})", R"({"die":1})", R"({"a":3})"});
  EXPECT_TRUE(std::holds_alternative<Answer>(replies[0]));
  ASSERT_TRUE(std::holds_alternative<Fault>(replies[1]));
  EXPECT_EQ(std::get<Fault>(replies[1]).message, "engine crashed: signal 11 (Segmentation fault)");
  ASSERT_TRUE(std::holds_alternative<Answer>(replies[2]));
  EXPECT_EQ(std::get<Answer>(replies[2]).text.substr(std::get<Answer>(replies[2]).text.find(',')), R"(,"a":3})");
  EXPECT_EQ(engine.starts(), 2u);
}

// An engine that serves each request in a worker it forks (the Python client) answers for a worker
// that died: the answer says how, and it is read as the crash of the engine's process would be.
TEST(DecodeAnswer, ReadsAWorkersCrash) {
  auto signalled = decodeAnswer<double>(R"({"id": 3, "crashed": {"signal": 11}})", 3, roomy(2));
  ASSERT_TRUE(signalled) << signalled.error().message;
  EXPECT_EQ(signalled->crashed, "signal 11 (Segmentation fault)");
  auto exited = decodeAnswer<double>(R"({"crashed": {"status": 1}, "id": 3})", 3, roomy(0));
  ASSERT_TRUE(exited) << exited.error().message;
  EXPECT_EQ(exited->crashed, "status 1");
}

TEST(EngineProcess, ACrashQuotesTheLast20LinesOfStderrEscaped) {
  // Writes 25 numbered lines, one with an escape sequence and one of 300 bytes, then dies.
  EngineProcess engine(shellEngine("case \"$line\" in *die*) for i in $(seq 1 25); do echo \"line $i\" >&2; done; "
                                   "printf \"clear \\033[2J\\r\\n\" >&2; printf \"%0300d\\n\" 0 >&2; "
                                   "echo >&2; kill -SEGV $$;; esac; echo \"$line\""));
  auto replies = engine.exchange({R"({"a":1})", R"({"die":1})"});
  ASSERT_TRUE(std::holds_alternative<Fault>(replies[1]));
  const std::string message = std::get<Fault>(replies[1]).message;
  std::string expected = "engine crashed: signal 11 (Segmentation fault) (last 20 lines on stderr: ";
  for (int i = 8; i <= 25; ++i) expected += fmt::format("'line {}' / ", i);
  expected += "'clear \\x1b[2J' / '" + std::string(200, '0') + "...' (cut; 300 bytes in all))";
  EXPECT_EQ(message, expected);
  // As the properties see it: the whole message kept, one line.
  try {
    props::guarded([&]() -> int { throw EngineFault(message); });
  } catch (const EngineFault& fault) {
    EXPECT_EQ(fault.what(), message);
  }
}

TEST(EngineProcess, ACrashWithOneLineOnStderrQuotesIt) {
  EngineProcess engine(shellEngine("case \"$line\" in *die*) echo \"Traceback: boom\" >&2; exit 3;; esac; echo \"$line\""));
  auto replies = engine.exchange({R"({"die":1})"});
  ASSERT_TRUE(std::holds_alternative<Fault>(replies[0]));
  EXPECT_EQ(std::get<Fault>(replies[0]).message, "engine exited: status 3 (last line on stderr: 'Traceback: boom')");
}

// A fault restarts the engine with the requests still pending, but not those nobody waits for any
// more (forgotten: a row's planned cases after its failure), which could hang again.
TEST(EngineProcess, ARestartDoesNotSendForgottenRequestsAgain) {
  EngineProcess engine(shellEngine(kHangsOnHang), ProcessSettings{std::chrono::milliseconds(1000), kMaxLine, nullptr});
  auto tickets = engine.send({R"({"a":1})", R"({"hang":1})", R"({"hang":2})", R"({"a":4})"});
  engine.forget(tickets[2]);
  EXPECT_TRUE(std::holds_alternative<Answer>(engine.receive(tickets[0])));
  EXPECT_TRUE(std::holds_alternative<Fault>(engine.receive(tickets[1])));
  auto last = engine.receive(tickets[3]);
  ASSERT_TRUE(std::holds_alternative<Answer>(last));
  EXPECT_NE(std::get<Answer>(last).text.find(R"("a":4)"), std::string::npos);
  EXPECT_EQ(engine.timeouts(), 1u);
  EXPECT_EQ(engine.starts(), 2u);
}

// An engine whose hello says "cancel": true is asked to cancel the request it hangs on, and runs
// on: no restart. (This shell engine cancels by reading the cancel line and answering for the id.)
TEST(EngineProcess, AnEngineThatCancelsIsNotRestartedAfterAHang) {
  EngineProcess engine(shellEngine("case \"$line\" in *hang*) read -r cancel; echo \"$line\" | sed \"s/hang/cancelled/\"; continue;; "
                                   "esac; echo \"$line\"",
                                   ", \\\"cancel\\\": true"),
                       ProcessSettings{std::chrono::milliseconds(1000), kMaxLine, nullptr});
  ASSERT_TRUE(engine.hello().cancels);
  // One request at a time: this engine reads the line after the one it hangs on as the cancel.
  std::vector<std::variant<Answer, Fault>> replies;
  for (const char* request : {R"({"a":1})", R"({"hang":1})", R"({"a":3})", R"({"hang":2})", R"({"a":5})"})
    replies.push_back(engine.exchange({request}).front());
  ASSERT_TRUE(std::holds_alternative<Fault>(replies[1]));
  EXPECT_EQ(std::get<Fault>(replies[1]).message, "no answer in 1 s");
  ASSERT_TRUE(std::holds_alternative<Answer>(replies[2]));
  EXPECT_NE(std::get<Answer>(replies[2]).text.find(R"("a":3)"), std::string::npos);
  EXPECT_TRUE(std::holds_alternative<Fault>(replies[3]));
  ASSERT_TRUE(std::holds_alternative<Answer>(replies[4]));
  EXPECT_NE(std::get<Answer>(replies[4]).text.find(R"("a":5)"), std::string::npos);
  EXPECT_EQ(engine.starts(), 1u);
  EXPECT_EQ(engine.timeouts(), 2u);
  EXPECT_EQ(engine.fullTimeouts(), 1u);
}

TEST(EngineProcess, ALineOverTheLimitIsAProtocolError) {
  ProcessSettings settings;
  settings.maxLine = 1000;
  EngineProcess engine(shellEngine("head -c 5000 /dev/zero | tr \"\\\\0\" x; echo"), settings);
  try {
    (void)engine.exchange({R"({"a":1})"});
    FAIL() << "no protocol error";
  } catch (const ProtocolError& error) {
    EXPECT_NE(std::string(error.what()).find("output line 2: the line is longer than 1000 bytes"), std::string::npos)
        << error.what();
  }
}

// A hello is a profile, a few kilobytes: a longer first line is refused at kMaxHelloLine, whatever
// the limit on answers, before it is parsed.
TEST(EngineProcess, AHelloOverItsLimitIsAProtocolError) {
  EngineProcess engine("head -c 3000000 /dev/zero | tr '\\0' ' '; echo");
  try {
    (void)engine.hello();
    FAIL() << "no protocol error";
  } catch (const ProtocolError& error) {
    EXPECT_NE(std::string(error.what()).find("output line 1: the hello is longer than 1048576 bytes"), std::string::npos)
        << error.what();
  }
}

TEST(EngineProcess, ATimeoutFaultsTheRequest) {
  ProcessSettings settings;
  settings.timeout = std::chrono::milliseconds(200);
  EngineProcess engine(shellEngine("sleep 5"), settings);
  auto replies = engine.exchange({R"({"a":1})"});
  ASSERT_TRUE(std::holds_alternative<Fault>(replies[0]));
  EXPECT_EQ(std::get<Fault>(replies[0]).message, "no answer in 0.2 s");
}

// After an engine first hangs, answers are awaited only kShortTimeoutFactor times its slowest answer
// (at least kLeastShortTimeout): a second hang costs that, not the whole timeout again, and answers
// that come are still taken. The assertions are on the timeout chosen, never on the clock.
TEST(EngineProcess, AfterAHangAnswersAreAwaitedAShortTimeout) {
  ProcessSettings settings;
  settings.timeout = std::chrono::milliseconds(60000);
  EngineProcess engine(shellEngine(kHangsOnHang), settings);
  auto first = engine.exchange({R"({"a":1})", R"({"a":2})"});
  ASSERT_TRUE(std::holds_alternative<Answer>(first[1]));
  EXPECT_EQ(engine.answerTimeout(), settings.timeout);  // no hang yet
  const auto shortened = std::max(kLeastShortTimeout, kShortTimeoutFactor * engine.slowestAnswer());
  ASSERT_LT(shortened, settings.timeout) << "an echo took " << engine.slowestAnswer().count() << " ms";
  // The first hang waits the whole timeout: lowered here so that the test is short.
  EngineProcess quick(shellEngine(kHangsOnHang),
                      ProcessSettings{std::chrono::milliseconds(3000), std::size_t{256} << 20, nullptr});
  auto replies = quick.exchange({R"({"a":1})", R"({"hang":1})", R"({"a":3})", R"({"hang":2})", R"({"a":5})"});
  ASSERT_TRUE(std::holds_alternative<Answer>(replies[0]));
  ASSERT_TRUE(std::holds_alternative<Fault>(replies[1]));
  EXPECT_EQ(std::get<Fault>(replies[1]).message, "no answer in 3 s");
  ASSERT_TRUE(std::holds_alternative<Answer>(replies[2]));
  ASSERT_TRUE(std::holds_alternative<Fault>(replies[3]));
  const auto awaited = std::min(std::chrono::milliseconds(3000),
                                std::max(kLeastShortTimeout, kShortTimeoutFactor * quick.slowestAnswer()));
  EXPECT_EQ(quick.answerTimeout(), awaited);
  if (awaited < std::chrono::milliseconds(3000)) {
    EXPECT_EQ(std::get<Fault>(replies[3]).message.find("no answer in " + fmt::format("{:g}", awaited.count() / 1000.0) +
                                                       " s (shortened after an earlier hang: 20x its slowest answer to "
                                                       "a case this size, at least 0.5 s)"),
              0u)
        << std::get<Fault>(replies[3]).message;
  }
  EXPECT_TRUE(std::holds_alternative<Answer>(replies[4]));  // answers that come are still taken
  EXPECT_EQ(quick.timeouts(), 2u);
  EXPECT_EQ(quick.fullTimeouts(), awaited < std::chrono::milliseconds(3000) ? 1u : 2u);
}

// neg of one input holding +0, and its compile planned with the case's own objects.
struct PlannedNegOfZero {
  Case<double> c = parseCase<double>(R"({"tapecheck": 1, "inputs": [{"shape": [1]}], "values": [["0"]],
      "nodes": [{"op": "neg", "args": [0]}]})").value();
  void planOn(const ProcessEngine<double>& engine) const {
    PlannedCompile<double> planned{c.graph, *c.inputs, c.data, {}, {}};
    planned.called = {&c.graph, &*c.inputs, &c.data};
    engine.plan({planned});
  }
  double negated(const ProcessEngine<double>& engine) const {
    auto execution = engine.compile(c.graph, *c.inputs, c.data);
    EXPECT_TRUE(execution) << execution.error().message;
    return execution ? (*execution)->context()[1].values[0] : std::nan("");
  }
};

// A compile the runner planned is known again by the objects it was recorded with, their values
// compared bit for bit (Carrier::same): values changed in place between the plan and the call make
// another case, and a -0 where a +0 was is one (neg(+0) = -0, neg(-0) = +0). Compared with `==`,
// the call would take the planned answer for +0. tapecheck's own engine answers (`tapecheck serve`).
TEST(ProcessEngine, APlannedCompileIsTakenOnlyForInputsIdenticalToTheBit) {
  EngineProcess process(std::string(TAPECHECK_BINARY) + " serve");
  ProcessEngine<double> engine(process);
  PlannedNegOfZero changed;
  changed.planOn(engine);
  (*changed.c.inputs)[0].values[0] = -0.0;
  const double out = changed.negated(engine);
  EXPECT_EQ(out, 0.0);
  EXPECT_FALSE(std::signbit(out)) << "neg(-0) came back -0: the answer planned for +0 was taken";
  // Values unchanged since their plan: the planned answer, right for them.
  PlannedNegOfZero unchanged;
  unchanged.planOn(engine);
  EXPECT_TRUE(std::signbit(unchanged.negated(engine))) << "neg(+0) is -0";
}

}  // namespace
}  // namespace tc::process
