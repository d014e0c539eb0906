#include "advice/advicetemplate.h"
#include "advice/advisor.h"
#include "advice/profilevalues.h"
#include "advice/ruleset.h"
#include "advice/valueunit.h"
#include "agents/planner.h"
#include "agents/promptlibrary.h"
#include "common/datapaths.h"
#include "model/evaluation.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <limits>

// The rules engine itself: how values read, how conditions decide and what they report, and what the planner
// is shown.
class TestAdvisor : public QObject
{
    Q_OBJECT

    static Evaluation evaluation(const QJsonObject &metrics, const QString &bound = QString(),
                                 std::optional<double> percentOfPeak = std::nullopt)
    {
        Evaluation e;
        e.status = EvalStatus::Ok;
        e.correct = true;
        e.metrics = metrics;
        e.bound = bound;
        e.percentOfPeak = percentOfPeak;
        e.latencyMeanMs = 0.25;
        return e;
    }

    static RuleSet rulesFrom(const char *json)
    {
        RuleSet set;
        if (!set.parse(QByteArray(json), QStringLiteral("test.json")))
            qFatal("test rules do not load: %s", qPrintable(set.errors().join(u'\n')));
        return set;
    }

private Q_SLOTS:
    void units_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("unit");
        QTest::addColumn<QString>("text");
        auto row = [](const char *unit, double value, const char *text) {
            QTest::addRow("%s %s", unit, text)
                << value << QString::fromLatin1(unit) << QString::fromUtf8(text);
        };
        row("bytes", 512, "512 B");
        row("bytes", 2048, "2 KiB");
        row("bytes", 65536, "64 KiB");
        row("bytes", 1536 * 1024, "1.5 MiB");
        row("bytes", 3.0 * 1024 * 1024 * 1024, "3 GiB");
        row("fraction", 0.42, "42%");
        row("fraction", 0.005, "0.5%");
        row("fraction", 1, "100%");
        row("percent", 12.5, "12.5%");
        row("count", 4096, "4096");
        row("flop", 5.5e11, "550 GFLOP");
        row("flop_per_byte", 222, "222 FLOP/B");
        row("ratio", 3.0, "3x");
        row("ratio", std::numeric_limits<double>::infinity(), "∞");
        row("seconds", 0.0025, "2.5 ms");
        row("seconds", 4e-6, "4 µs");
        row("ms", 0.412, "0.412 ms");
        row("ns", 99.0099, "99 ns");
        row("number", 0.015625, "0.0156");
        row("number", 123456, "123456");
    }

    void units()
    {
        QFETCH(double, value);
        QFETCH(QString, unit);
        QFETCH(QString, text);
        const auto kind = ValueUnit::fromName(unit);
        QVERIFY(kind);
        QCOMPARE(ValueUnit::format(value, *kind), text);
    }

    void unitFollowsTheName()
    {
        QCOMPARE(ValueUnit::forValue(QStringLiteral("hbm_read_bytes")), ValueUnit::Bytes);
        QCOMPARE(ValueUnit::forValue(QStringLiteral("dma_active_time_percent")), ValueUnit::Fraction);
        QCOMPARE(ValueUnit::forValue(QStringLiteral("dma_transfer_count")), ValueUnit::Count);
        QCOMPARE(ValueUnit::forValue(QStringLiteral("hardware_flops")), ValueUnit::Flop);
        QCOMPARE(ValueUnit::forValue(QStringLiteral("mm_arithmetic_intensity")), ValueUnit::FlopPerByte);
        QCOMPARE(ValueUnit::forValue(QStringLiteral("percent_of_peak")), ValueUnit::Percent); // 0-100
        QCOMPARE(ValueUnit::forValue(QStringLiteral("something_else")), ValueUnit::Number);
    }

    void derivedValues()
    {
        const ProfileValues v(evaluation({{QStringLiteral("hbm_read_bytes"), 1000},
                                          {QStringLiteral("hbm_write_bytes"), 24},
                                          {QStringLiteral("spill_reload_bytes"), 256},
                                          {QStringLiteral("sbuf_read_bytes"), 512},
                                          {QStringLiteral("sbuf_write_bytes"), 512},
                                          {QStringLiteral("hardware_flops"), 100},
                                          {QStringLiteral("transpose_flops"), 30},
                                          {QStringLiteral("tensor_engine_active_time_percent"), 0.2},
                                          {QStringLiteral("vector_engine_active_time_percent"), 0.7},
                                          {QStringLiteral("vector_engine_active_time"), 0.001},
                                          {QStringLiteral("vector_engine_instruction_count"), 1000},
                                          {QStringLiteral("scalar_engine_instruction_count"), 0}},
                                         QStringLiteral("memory"), 55.0));
        QCOMPARE(v.value(QStringLiteral("hbm_bytes")), 1024.0);
        QCOMPARE(v.value(QStringLiteral("spill_bytes")), 256.0); // save not reported counts as none
        QCOMPARE(v.value(QStringLiteral("spill_share_of_sbuf_traffic")), 0.25);
        QCOMPARE(v.value(QStringLiteral("matmul_flops")), 70.0);
        QCOMPARE(v.value(QStringLiteral("busiest_engine_active")), 0.7);
        QCOMPARE(v.value(QStringLiteral("vector_average_instruction_ns")), 1000.0);
        QVERIFY(!v.value(QStringLiteral("scalar_average_instruction_ns"))); // no time, no average
        QCOMPARE(v.value(QStringLiteral("percent_of_peak")), 55.0);
        QCOMPARE(v.value(QStringLiteral("latency_ms")), 0.25);
        QCOMPARE(v.bound(), QStringLiteral("memory"));
        QVERIFY(!v.value(QStringLiteral("psum_read_bytes")));
        for (const QString &name : ProfileValues::derivedNames())
            QVERIFY2(!ProfileValues::describeDerived(name).isEmpty(), qPrintable(name));
    }

    void missingValuesNeverFire()
    {
        const RuleSet rules = rulesFrom(R"({"version": 1, "rules": [
            {"id": "low", "title": "t", "severity": "info", "why": "w", "cites": ["a_count"],
             "when": {"metric": "a_count", "op": "<", "value": 10}, "advice": "a is {a_count}"},
            {"id": "ratio", "title": "t", "severity": "info", "why": "w", "cites": ["a_count"],
             "when": {"ratio": ["a_count", "b_count"], "op": "<", "value": 10}, "advice": "x"}]})");
        QVERIFY(Advisor::evaluate(rules, evaluation({})).isEmpty());
        QCOMPARE(Advisor::evaluate(rules, evaluation({{QStringLiteral("a_count"), 3}})).size(), 1);
        // 0 / 0 says nothing, so neither side of any threshold holds.
        QCOMPARE(Advisor::evaluate(
                     rules, evaluation({{QStringLiteral("a_count"), 0}, {QStringLiteral("b_count"), 0}}))
                     .size(),
                 1);
    }

    void anyReportsEveryReasonAndWarningsComeFirst()
    {
        const RuleSet rules = rulesFrom(R"({"version": 1, "rules": [
            {"id": "note", "title": "A note", "severity": "info", "why": "w", "cites": ["a_count"],
             "when": {"metric": "a_count", "op": ">=", "value": 1}, "advice": "a is {a_count}"},
            {"id": "either", "title": "Either", "severity": "warning", "why": "w", "cites": ["a_count", "b_bytes"],
             "when": {"any": [{"metric": "a_count", "op": ">", "value": 1},
                              {"metric": "b_bytes", "op": "==", "value": 2048},
                              {"metric": "c_count", "op": ">", "value": 1}]},
             "advice": "a {a_count}, b {b_bytes|count}, {bound}"}]})");
        const QList<Finding> findings = Advisor::evaluate(
            rules, evaluation({{QStringLiteral("a_count"), 5}, {QStringLiteral("b_bytes"), 2048}},
                              QStringLiteral("vector")));
        QCOMPARE(findings.size(), 2);
        const Finding &f = findings.first();
        QCOMPARE(f.ruleId, QStringLiteral("either"));
        QCOMPARE(f.severity, Severity::Warning);
        QCOMPARE(f.advice, QStringLiteral("a 5, b 2048, vector"));
        QCOMPARE(f.evidence.size(), 2);
        QCOMPARE(f.evidence.at(0).text(), QStringLiteral("a_count = 5 > 1"));
        QCOMPARE(f.evidence.at(1).text(), QStringLiteral("b_bytes = 2 KiB == 2 KiB"));
        QCOMPARE(f.evidence.at(1).value, 2048.0);
        QCOMPARE(f.evidence.at(1).threshold, 2048.0);
        QCOMPARE(f.cited.size(), 2);
        QCOMPARE(f.cited.at(1).valueText, QStringLiteral("2 KiB"));
        QCOMPARE(findings.at(1).ruleId, QStringLiteral("note"));

        const QString text = Advisor::format(findings);
        QCOMPARE(text.count(u'\n'), 1);
        QVERIFY(text.startsWith(
            QStringLiteral("- [warning] Either: a 5, b 2048, vector (because a_count = 5 > 1; "
                           "b_bytes = 2 KiB == 2 KiB)")));
        QVERIFY(text.contains(QStringLiteral("- [info] A note: a is 5 (because a_count = 5 >= 1)")));
    }

    void templates()
    {
        QString error;
        const auto t =
            AdviceTemplate::parse(QStringLiteral("{{literal} {x_bytes} and { y_percent | ratio }"), &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->valueNames(), (QStringList{QStringLiteral("x_bytes"), QStringLiteral("y_percent")}));
        const ProfileValues v(evaluation({{QStringLiteral("x_bytes"), 65536}}));
        QCOMPARE(t->render(v), QStringLiteral("{literal} 64 KiB and (not reported)"));
        QVERIFY(!AdviceTemplate::parse(QStringLiteral("{Not A Name}"), &error));
        QVERIFY(error.contains(QStringLiteral("does not name a value")));
    }

    void promptText()
    {
        RuleSet broken;
        QVERIFY(!broken.parse(QByteArray("{"), QStringLiteral("broken.json")));
        QCOMPARE(Advisor::forPrompt(broken, evaluation({{QStringLiteral("a_count"), 1}})),
                 QStringLiteral("(no findings available: the recommendation rules did not load)"));
        const RuleSet &shipped = RuleSet::shipped();
        QVERIFY(shipped.ok());
        QCOMPARE(Advisor::forPrompt(shipped, Evaluation{}),
                 QStringLiteral("(no findings available: the kernel has no profile)"));
        QCOMPARE(Advisor::forPrompt(shipped, evaluation({{QStringLiteral("dma_transfer_count"), 3}})),
                 QStringLiteral("No rule flagged a problem in this profile."));
    }

    void plannerPromptCarriesTheFindings()
    {
        PromptLibrary prompts;
        QVERIFY2(prompts.load(DataPaths::promptsDir()), qPrintable(prompts.errors().join(u'\n')));
        QVERIFY(PromptLibrary::declaredPlaceholders(AgentRole::Planner).contains(QStringLiteral("findings")));

        const Evaluation e = evaluation({{QStringLiteral("dma_transfer_average_bytes"), 2048},
                                         {QStringLiteral("dma_transfer_count"), 4096},
                                         {QStringLiteral("dma_active_time_percent"), 0.95},
                                         {QStringLiteral("vector_engine_active_time_percent"), 0.2}},
                                        QStringLiteral("memory"), 12.0);
        Planner::Input in;
        in.reference = QStringLiteral("def forward(a):\n    return a\n");
        in.kernel = QStringLiteral("def kernel(a):\n    return a\n");
        in.metrics = e.metrics;
        in.findings = Advisor::forPrompt(RuleSet::shipped(), e);
        QVERIFY(in.findings.contains(QStringLiteral("[warning] DMA transfers are small")));
        QVERIFY(in.findings.contains(QStringLiteral("dma_transfer_average_bytes = 2 KiB < 32 KiB")));
        QVERIFY(in.findings.contains(QStringLiteral("[info] Far from the roofline peak")));
        const QString user = Planner::messages(prompts, in).at(1).content;
        QVERIFY2(user.contains(in.findings), qPrintable(user));
        QVERIFY(!user.contains(QStringLiteral("{{")));

        in.findings.clear();
        const QString none = Planner::messages(prompts, in).at(1).content;
        QVERIFY(none.contains(QStringLiteral("(no findings available)")));
    }
};

QTEST_GUILESS_MAIN(TestAdvisor)
#include "tst_advisor.moc"
