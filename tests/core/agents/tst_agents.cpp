#include "agents/executor.h"
#include "agents/fencedblocks.h"
#include "agents/fixer.h"
#include "agents/planner.h"
#include "agents/promptlibrary.h"
#include "agents/summarizer.h"
#include "common/datapaths.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

namespace {
const QString kernelV1 = QStringLiteral("import neuronxcc.nki.language as nl\n\n"
                                        "def kernel(a):\n    t = nl.load(a)\n    return t\n");
const QString kernelV2 = QStringLiteral("import neuronxcc.nki.language as nl\n\n"
                                        "def kernel(a):\n    t = nl.load(a[0:128])\n    return t\n");

void write(const QString &path, const QString &text)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text.toUtf8());
}

QString fenced(const QString &code, const QString &info = QStringLiteral("python"))
{
    return QStringLiteral("```%1\n%2```\n").arg(info, code);
}
} // namespace

class TestAgents : public QObject
{
    Q_OBJECT
    PromptLibrary m_prompts;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_prompts.load(DataPaths::promptsDir()), qPrintable(m_prompts.errors().join(u'\n')));
        for (AgentRole role : AgentRoles::all())
            QVERIFY(m_prompts.has(role));
    }

    void unknownPlaceholderFailsAtLoad()
    {
        QTemporaryDir over;
        write(over.filePath(QStringLiteral("executor/user.md")),
              QStringLiteral("{{reference}} {{kernel}} {{plan}} and {{profile}}"));
        PromptLibrary lib;
        QVERIFY(!lib.load(DataPaths::promptsDir(), over.path()));
        const QString errors = lib.errors().join(u'\n');
        QVERIFY2(errors.contains(QStringLiteral("unknown placeholder {{profile}}")), qPrintable(errors));
        QVERIFY(errors.contains(over.filePath(QStringLiteral("executor/user.md"))));
        QVERIFY(!lib.has(AgentRole::Executor));
        QVERIFY(lib.has(AgentRole::Planner)); // the other roles still load, from the shipped folder
        QVERIFY(lib.render(AgentRole::Executor, {}).isEmpty());
    }

    void missingPlaceholderFailsAtLoad()
    {
        QTemporaryDir over;
        write(over.filePath(QStringLiteral("fixer/user.md")),
              QStringLiteral("{{reference}} {{kernel}} {{plan}}"));
        PromptLibrary lib;
        QVERIFY(!lib.load(DataPaths::promptsDir(), over.path()));
        QVERIFY(lib.errors().join(u'\n').contains(QStringLiteral("placeholder {{error}} is missing")));
        QVERIFY(!lib.has(AgentRole::Fixer));
    }

    void malformedPlaceholderAndMissingFile()
    {
        QTemporaryDir over;
        write(over.filePath(QStringLiteral("planner/user.md")), QStringLiteral("line one\n{{Kernel Code}}"));
        PromptLibrary lib;
        QVERIFY(!lib.load(DataPaths::promptsDir(), over.path()));
        QVERIFY(lib.errors().join(u'\n').contains(QStringLiteral("line 2")));
        QTemporaryDir empty;
        PromptLibrary none;
        QVERIFY(!none.load(empty.path()));
        QVERIFY(none.errors().join(u'\n').contains(QStringLiteral("cannot read")));
    }

    void valuesAreInsertedVerbatim()
    {
        QString error;
        const auto t = PromptTemplate::parse(QStringLiteral("A {{x}} B {{ y }}"), &error);
        QVERIFY(t);
        QCOMPARE(t->placeholders(), (QStringList{QStringLiteral("x"), QStringLiteral("y")}));
        QCOMPARE(t->render({{QStringLiteral("x"), QStringLiteral("{{y}}")},
                            {QStringLiteral("y"), QStringLiteral("2")}}),
                 QStringLiteral("A {{y}} B 2"));
        QVERIFY(!PromptTemplate::parse(QStringLiteral("open {{x"), &error));
        QVERIFY(error.contains(QStringLiteral("never closed")));
    }

    void plannerMessages()
    {
        Planner::Input in;
        in.reference = QStringLiteral("def forward(a):\n    return a * 2\n");
        in.kernel = kernelV1;
        in.latencyMs = 0.25;
        in.metrics = {{QStringLiteral("hbm_read_bytes"), 4194304},
                      {QStringLiteral("vector_engine_active_time_percent"), 0.42}};
        in.experiences << Experience{QStringLiteral("Hoist the load"),
                                     QStringLiteral("Loads in loops repeat."),
                                     QStringLiteral("for i:\n  x = nl.load(a)"),
                                     QStringLiteral("x = nl.load(a)"), 1.31}
                       << Experience{QStringLiteral("Tiny tiles"),
                                     QStringLiteral("Small tiles waste the engine."), QString(), QString(),
                                     0.7};
        const ChatMessages m = Planner::messages(m_prompts, in);
        QCOMPARE(m.size(), 2);
        QCOMPARE(m.at(0).role, QStringLiteral("system"));
        const QString all = m.at(0).content + m.at(1).content;
        QVERIFY(!all.contains(QStringLiteral("{{")));
        QVERIFY(all.contains(in.reference.trimmed()));
        QVERIFY(all.contains(QStringLiteral("def kernel(a):")));
        QVERIFY(all.contains(QStringLiteral("latency_ms: 0.25")));
        QVERIFY(all.contains(QStringLiteral("hbm_read_bytes: 4194304")));
        QVERIFY(all.contains(QStringLiteral("- vector_engine_active_time_percent:"))); // the glossary line
        QVERIFY(!all.contains(QStringLiteral("- psum_read_bytes:")));                  // only metrics present
        QVERIFY(all.contains(QStringLiteral("Hoist the load (measured 1.31x)")));
        QVERIFY(all.contains(QStringLiteral("Tiny tiles (measured 0.70x)")));
        QVERIFY(all.indexOf(QStringLiteral("Hoist the load")) < all.indexOf(QStringLiteral("slower")));
        QVERIFY(all.indexOf(QStringLiteral("slower")) < all.indexOf(QStringLiteral("Tiny tiles")));
        QVERIFY(!all.contains(QStringLiteral("Source of these numbers"))); // a runner that did not say

        // The planner is told where the numbers come from (issue 34), in one line above the profile.
        in.provenance = QStringLiteral("nkisim on local");
        QString told = Planner::messages(m_prompts, in).at(1).content;
        QVERIFY2(told.contains(
                     QStringLiteral("Source of these numbers: nkisim on local (a simulator's prediction, "
                                    "not a device measurement).\nlatency_ms: 0.25")),
                 qPrintable(told));
        in.provenance = QStringLiteral("hardware (Neuron SDK 2.33) on trn");
        told = Planner::messages(m_prompts, in).at(1).content;
        QVERIFY(
            told.contains(QStringLiteral("Source of these numbers: hardware (Neuron SDK 2.33) on trn.\n")));
    }

    void plannerParse()
    {
        auto r =
            Planner::parse(QStringLiteral("Title: Hoist the input load\nSteps:\n1. Move nl.load out of the "
                                          "loop.\n2. Reuse the tile.\n"));
        QVERIFY(r.ok());
        QCOMPARE(r.value().title, QStringLiteral("Hoist the input load"));
        QCOMPARE(r.value().steps, (QStringList{QStringLiteral("Move nl.load out of the loop."),
                                               QStringLiteral("Reuse the tile.")}));
        QVERIFY(r.value().text.startsWith(QStringLiteral("Title:")));

        r = Planner::parse(
            QStringLiteral("**Fuse the two passes**\n\nThe kernel reads `a` twice; read it once and "
                           "compute both results from the tile.\n```python\nx = 1\n- not a step\n```\n"));
        QVERIFY(r.ok());
        QCOMPARE(r.value().title, QStringLiteral("Fuse the two passes"));
        QCOMPARE(r.value().steps.size(), 1);
        QVERIFY(r.value().steps.first().startsWith(QStringLiteral("The kernel reads")));

        r = Planner::parse(QStringLiteral("   \n"));
        QVERIFY(!r.ok());
        QCOMPARE(r.error().kind, AgentParseError::Kind::Empty);
        r = Planner::parse(QStringLiteral("Title: x\n```python\nfor i in range(3):\n"));
        QCOMPARE(r.error().kind, AgentParseError::Kind::Truncated);
        r = Planner::parse(QStringLiteral("Title: Only a title"));
        QCOMPARE(r.error().kind, AgentParseError::Kind::Malformed);
    }

    void eachAgentIsToldTheNkiItWrites()
    {
        Plan plan{QStringLiteral("Port"), {}, QStringLiteral("Title: Port")};
        const QString classic = QStringLiteral("import neuronxcc.nki.language as nl\n\ndef kernel(x): ...\n");
        const QString current = QStringLiteral("import nki\nimport nki.language as nl\n\ndef kernel(x): ...\n");
        QCOMPARE(NkiGeneration::of(classic), NkiGeneration::Kind::Classic);
        QCOMPARE(NkiGeneration::of(current), NkiGeneration::Kind::Current);
        QCOMPARE(NkiGeneration::of(QStringLiteral("def kernel(x): ...")), NkiGeneration::Kind::Classic);
        QCOMPARE(NkiGeneration::of(QStringLiteral("from nki.isa import nc_matmul\n")), NkiGeneration::Kind::Current);
        const auto system = [](const ChatMessages &m) { return m.isEmpty() ? QString() : m.first().content; };
        const QString onClassic = system(Executor::messages(m_prompts, {QString(), classic, plan, std::nullopt}));
        QVERIFY2(onClassic.contains(QStringLiteral("Classic NKI")) && !onClassic.contains(QStringLiteral("Current NKI")),
                 qPrintable(onClassic));
        const QString onCurrent = system(Executor::messages(m_prompts, {QString(), current, plan, std::nullopt}));
        QVERIFY(onCurrent.contains(QStringLiteral("Current NKI")) && !onCurrent.contains(QStringLiteral("Classic NKI")));
        // A port reads a classic kernel and writes a current one.
        const QString port =
            system(Executor::messages(m_prompts, {QString(), classic, plan, NkiGeneration::Kind::Current}));
        QVERIFY(port.contains(QStringLiteral("Current NKI")));
        // Only the fixer of a current kernel hears about the usual migration errors.
        Fixer::Input fix{QString(), current, plan, {}};
        QVERIFY(system(Fixer::messages(m_prompts, fix)).contains(QStringLiteral("moved from the classic API")));
        fix.kernel = classic;
        QVERIFY(!system(Fixer::messages(m_prompts, fix)).contains(QStringLiteral("moved from the classic API")));
        QVERIFY(!system(Executor::messages(m_prompts, {QString(), current, plan, std::nullopt}))
                     .contains(QStringLiteral("moved from the classic API")));
        Planner::Input p;
        p.kernel = current;
        QVERIFY(system(Planner::messages(m_prompts, p)).contains(QStringLiteral("Current NKI")));
    }

    void executorMessagesAndParse()
    {
        Plan plan{QStringLiteral("Hoist"),
                  {QStringLiteral("Move the load")},
                  QStringLiteral("Title: Hoist\n1. Move the load")};
        const ChatMessages m =
            Executor::messages(m_prompts, {QStringLiteral("def forward(a): ..."), kernelV1, plan, std::nullopt});
        QCOMPARE(m.size(), 2);
        QVERIFY(m.at(1).content.contains(QStringLiteral("1. Move the load")));
        QVERIFY(m.at(1).content.contains(QStringLiteral("def forward(a)")));

        auto r =
            Executor::parse(QStringLiteral("Here it is:\n") + fenced(kernelV2) + QStringLiteral("Done."));
        QVERIFY(r.ok());
        QCOMPARE(r.value().source, kernelV2);
        QCOMPARE(r.value().candidates, 1);

        // Two candidates: the first is taken, and the choice is said.
        r = Executor::parse(fenced(kernelV2) + QStringLiteral("or\n") + fenced(kernelV1, QString()));
        QVERIFY(r.ok());
        QCOMPARE(r.value().source, kernelV2);
        QCOMPARE(r.value().candidates, 2);
        QVERIFY(r.value().notes.join(u' ').contains(QStringLiteral("first")));

        // A helper block first, then the kernel: the kernel is found.
        r = Executor::parse(fenced(QStringLiteral("def helper():\n    pass\n")) +
                            fenced(kernelV1, QStringLiteral("py")));
        QVERIFY(r.ok());
        QCOMPARE(r.value().source, kernelV1);

        r = Executor::parse(QStringLiteral("I would tile it by 128."));
        QCOMPARE(r.error().kind, AgentParseError::Kind::NoCode);
        r = Executor::parse(fenced(QStringLiteral("def helper():\n    pass\n")));
        QCOMPARE(r.error().kind, AgentParseError::Kind::NoKernel);
        r = Executor::parse(fenced(kernelV1, QStringLiteral("text")));
        QCOMPARE(r.error().kind, AgentParseError::Kind::NoKernel);
        r = Executor::parse(QStringLiteral("```python\ndef kernel(a):\n    t = nl.lo"));
        QCOMPARE(r.error().kind, AgentParseError::Kind::Truncated);
        QVERIFY(r.error().message.contains(QStringLiteral("line 1")));
        r = Executor::parse(QString());
        QCOMPARE(r.error().kind, AgentParseError::Kind::Empty);
        // ~~~ fences and CRLF line ends are Markdown too.
        r = Executor::parse(QStringLiteral("~~~python\r\ndef kernel(a):\r\n    return a\r\n~~~\r\n"));
        QVERIFY(r.ok());
        QVERIFY(r.value().source.startsWith(QStringLiteral("def kernel(a):")));
    }

    void fixerMessagesAndParse()
    {
        Fixer::Input in;
        in.reference = QStringLiteral("def forward(a): ...");
        in.kernel = kernelV1;
        in.plan.text = QStringLiteral("Title: Bigger tiles\n1. Use 256 partitions");
        in.failure = {QStringLiteral("incorrect"), QStringLiteral("output mismatch"), 0.031, 2.5, 2e-5};
        const ChatMessages m = Fixer::messages(m_prompts, in);
        const QString user = m.at(1).content;
        QVERIFY(user.contains(QStringLiteral("status: incorrect")));
        QVERIFY(user.contains(QStringLiteral("relative L2 error of the output: 0.031")));
        QVERIFY(user.contains(QStringLiteral("allowed relative L2 error: 2e-05")));
        QVERIFY(user.contains(QStringLiteral("Use 256 partitions")));
        Fixer::Input compile = in;
        compile.failure = {QStringLiteral("compile_error"),
                           QStringLiteral("line 4: partition dimension 256 > 128"), std::nullopt,
                           std::nullopt, std::nullopt};
        const QString user2 = Fixer::messages(m_prompts, compile).at(1).content;
        QVERIFY(user2.contains(QStringLiteral("line 4: partition dimension 256 > 128")));
        QVERIFY(!user2.contains(QStringLiteral("L2")));

        auto r = Fixer::parse(QStringLiteral("The tile was too tall.\n") + fenced(kernelV2));
        QVERIFY(r.ok());
        QCOMPARE(r.value().source, kernelV2);
        QCOMPARE(Fixer::parse(QStringLiteral("no idea")).error().kind, AgentParseError::Kind::NoCode);
    }

    void summarizerMessagesBothDirections()
    {
        Summarizer::Input in;
        in.beforeKernel = kernelV1;
        in.afterKernel = kernelV2;
        in.speedup = 1.25;
        in.beforeLatencyMs = 0.5;
        in.afterLatencyMs = 0.4;
        in.beforeMetrics = {{QStringLiteral("hbm_read_bytes"), 2048}};
        in.afterMetrics = {{QStringLiteral("hbm_read_bytes"), 1024}};
        QString user = Summarizer::messages(m_prompts, in).at(1).content;
        QVERIFY(user.contains(QStringLiteral("faster")));
        QVERIFY(user.contains(QStringLiteral("1.250x")));
        QVERIFY(user.contains(QStringLiteral("hbm_read_bytes: 2048")));
        QVERIFY(user.contains(QStringLiteral("hbm_read_bytes: 1024")));
        QVERIFY(user.indexOf(QStringLiteral("a)\n")) < user.indexOf(QStringLiteral("a[0:128]")));
        in.speedup = 0.8;
        user = Summarizer::messages(m_prompts, in).at(1).content;
        QVERIFY(user.contains(QStringLiteral("slower")));
        QVERIFY(user.contains(QStringLiteral("pitfall")));
    }

    void summarizerParse()
    {
        const QString reply = QStringLiteral("Title: Load only the rows you need\n"
                                             "Lesson: Slicing the input at load time halves HBM reads "
                                             "(hbm_read_bytes 2048 -> 1024).\n"
                                             "Before:\n```python\nt = nl.load(a)\n```\n"
                                             "After:\n```python\nt = nl.load(a[0:128])\n```\n");
        auto r = Summarizer::parse(reply, 1.25);
        QVERIFY2(r.ok(), r.ok() ? "" : qPrintable(r.error().message));
        QCOMPARE(r.value().title, QStringLiteral("Load only the rows you need"));
        QVERIFY(r.value().lesson.startsWith(QStringLiteral("Slicing the input")));
        QVERIFY(!r.value().lesson.contains(QStringLiteral("Before")));
        QCOMPARE(r.value().snippetBefore, QStringLiteral("t = nl.load(a)"));
        QCOMPARE(r.value().snippetAfter, QStringLiteral("t = nl.load(a[0:128])"));
        QCOMPARE(r.value().speedup, 1.25);
        QVERIFY(!r.value().isNegative());

        // Negative pairs keep their direction and their measured speedup.
        auto neg =
            Summarizer::parse(QStringLiteral("**Splitting the matmul into 64-wide tiles**\n"
                                             "Half-width tiles leave the tensor engine idle half the time.\n"
                                             "**Original code:**\n```python\nmm(a, b)\n```\n"
                                             "**Optimized code:**\n```python\nmm(a[:64], b)\n```\n"),
                              0.7);
        QVERIFY(neg.ok());
        QVERIFY(neg.value().isNegative());
        QCOMPARE(neg.value().title, QStringLiteral("Splitting the matmul into 64-wide tiles"));
        QVERIFY(neg.value().lesson.startsWith(QStringLiteral("Half-width")));

        QCOMPARE(Summarizer::parse(QStringLiteral("NO CHANGE"), 1.0).error().kind,
                 AgentParseError::Kind::NoChange);
        QCOMPARE(Summarizer::parse(QString(), 1.0).error().kind, AgentParseError::Kind::Empty);
        QCOMPARE(
            Summarizer::parse(QStringLiteral("Title: x\nLesson: y\n```python\na\n```\n"), 1.1).error().kind,
            AgentParseError::Kind::NoCode);
        QCOMPARE(
            Summarizer::parse(QStringLiteral("Title: x\nLesson: y\n```python\na\n```\n```python\nb"), 1.1)
                .error()
                .kind,
            AgentParseError::Kind::Truncated);
        QCOMPARE(Summarizer::parse(QStringLiteral("Title: x\n```python\na\n```\n```python\nb\n```\n"), 1.1)
                     .error()
                     .kind,
                 AgentParseError::Kind::Malformed);
    }

    void fencedBlocks()
    {
        const auto blocks =
            FencedBlocks::scan(QStringLiteral("a\n````python\nx = '```'\n````\nb\n```\nopen"));
        QCOMPARE(blocks.size(), 2);
        QCOMPARE(blocks.at(0).code, QStringLiteral("x = '```'"));
        QVERIFY(blocks.at(0).closed);
        QCOMPARE(blocks.at(1).line, 6);
        QVERIFY(!blocks.at(1).closed);
        QCOMPARE(FencedBlocks::prose(QStringLiteral("a\n```\ncode\n```\nb")), QStringLiteral("a\nb"));
    }
};

QTEST_GUILESS_MAIN(TestAgents)
#include "tst_agents.moc"
