#include "model/evalprofile.h"
#include "model/estimateexplanation.h"
#include "model/evaluation.h"
#include "profile/chrometrace.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

// The profile as the runner sends it (nkibench/runner/README.md): parsed, its timeline kept out of the stored
// raw result, malformed ones refused with the reason, and the Chrome trace written from it.
class TestEvalProfile : public QObject
{
    Q_OBJECT

    static QJsonObject profile()
    {
        const QJsonObject ns{{QStringLiteral("tensor"), 0.0}, {QStringLiteral("vector"), 800.0},
                             {QStringLiteral("scalar"), 0.0}, {QStringLiteral("gpsimd"), 0.0}, {QStringLiteral("dma"), 300.0}};
        return QJsonObject{
            {QStringLiteral("source"), QStringLiteral("nkisim")},
            {QStringLiteral("available"), true},
            {QStringLiteral("instruction_count"), 3},
            {QStringLiteral("engine_busy_ns"), ns},
            {QStringLiteral("line_costs"),
             QJsonArray{QJsonObject{{QStringLiteral("line"), 12}, {QStringLiteral("ns"), ns},
                                    {QStringLiteral("instructions"), 3}, {QStringLiteral("bytes"), 4096}}}},
            {QStringLiteral("timeline"),
             QJsonObject{{QStringLiteral("units"), QJsonArray{QStringLiteral("vector"), QStringLiteral("dma3")}},
                         {QStringLiteral("ops"), QJsonArray{QStringLiteral("tensor_tensor"), QStringLiteral("dma")}},
                         {QStringLiteral("unit"), QJsonArray{1, 0, 0}},
                         {QStringLiteral("op"), QJsonArray{1, 0, 0}},
                         {QStringLiteral("line"), QJsonArray{12, 12, 12}},
                         {QStringLiteral("start_ns"), QJsonArray{0.0, 300.0, 700.0}},
                         {QStringLiteral("dur_ns"), QJsonArray{300.0, 400.0, 400.0}},
                         {QStringLiteral("partitions"), QJsonArray{128, 128, 128}},
                         {QStringLiteral("free"), QJsonArray{8, 8, 8}},
                         {QStringLiteral("bytes"), QJsonArray{4096, 0, 0}},
                         {QStringLiteral("count"), 3},
                         {QStringLiteral("truncated"), false}}}};
    }

private Q_SLOTS:

    // Every effect nkisim's explain.py can report reads as words in the Estimate tab and the CLI, not as its key.
    void everyEffectNkisimNamesHasALabel()
    {
        QFile f(QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/nkisim/perf/explain.py"));
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(f.fileName()));
        const QString source = QString::fromUtf8(f.readAll());
        const auto m = QRegularExpression(QStringLiteral(R"re(EFFECTS = \(([^)]*)\))re")).match(source);
        QVERIFY2(m.hasMatch(), "explain.py no longer lists its EFFECTS tuple");
        QStringList effects;
        for (auto it = QRegularExpression(QStringLiteral(R"re("([a-z_0-9]+)")re")).globalMatch(m.captured(1));
             it.hasNext();)
            effects << it.next().captured(1);
        QVERIFY(effects.size() >= 9);
        for (const QString &e : effects)
            QVERIFY2(EstimateExplanation::effectLabel(e) != e, qPrintable(QStringLiteral("no label for ") + e));
    }

    void parsesTheExplanation()
    {
        QJsonObject p = profile();
        const QJsonObject explain{
            {QStringLiteral("latency_ns"), 2000.0},
            {QStringLiteral("target"), QStringLiteral("trn1")},
            {QStringLiteral("bound"), QStringLiteral("vector")},
            {QStringLiteral("engines"),
             QJsonObject{{QStringLiteral("vector"),
                          QJsonObject{{QStringLiteral("busy_ns"), 800.0}, {QStringLiteral("stall_ns"), 100.0},
                                      {QStringLiteral("instructions"), 2}, {QStringLiteral("share"), 0.4}}},
                         {QStringLiteral("dma"),
                          QJsonObject{{QStringLiteral("busy_ns"), 300.0}, {QStringLiteral("stall_ns"), 0.0},
                                      {QStringLiteral("instructions"), 1}, {QStringLiteral("share"), 0.01}}}}},
            {QStringLiteral("effects"),
             QJsonArray{QJsonObject{{QStringLiteral("effect"), QStringLiteral("psum_operand")},
                                    {QStringLiteral("engine"), QStringLiteral("vector")}, {QStringLiteral("ns"), 800.0},
                                    {QStringLiteral("share"), 0.4}, {QStringLiteral("instructions"), 2},
                                    {QStringLiteral("what"), QStringLiteral("subset")}},
                        QJsonObject{{QStringLiteral("effect"), QStringLiteral("fixed_overhead")},
                                    {QStringLiteral("engine"), QStringLiteral("vector")}, {QStringLiteral("ns"), 100.0},
                                    {QStringLiteral("share"), 0.05}, {QStringLiteral("instructions"), 2},
                                    {QStringLiteral("what"), QStringLiteral("floor")}},
                        QJsonObject{{QStringLiteral("effect"), QStringLiteral("throughput")},
                                    {QStringLiteral("engine"), QStringLiteral("vector")}, {QStringLiteral("ns"), 700.0},
                                    {QStringLiteral("share"), 0.35}, {QStringLiteral("instructions"), 2},
                                    {QStringLiteral("what"), QStringLiteral("work")}}}}};
        p.insert(QStringLiteral("explain"), explain);
        QString error;
        const auto parsed = EvalProfile::fromJson(p, &error);
        QVERIFY2(parsed && parsed->explanation, qPrintable(error));
        const EstimateExplanation &x = *parsed->explanation;
        QCOMPARE(x.bound, QStringLiteral("vector"));
        QCOMPARE(x.engines.first().engine, QStringLiteral("vector")); // busiest first
        QCOMPARE(x.effects.size(), 3);
        QCOMPARE(x.effects.at(0).effect, QStringLiteral("throughput")); // by share, the PSUM subset last
        QCOMPARE(x.effects.at(2).effect, QStringLiteral("psum_operand"));
        const QString text = x.text(2);
        QVERIFY2(text.contains(QStringLiteral("bound by Vector")) && text.contains(QStringLiteral("35.0%")) &&
                     text.contains(QStringLiteral("1 smaller effects left out")),
                 qPrintable(text));
        // Malformed: refused with the reason, the rest of the profile with it.
        QJsonObject bad = explain;
        bad.insert(QStringLiteral("effects"),
                   QJsonArray{QJsonObject{{QStringLiteral("effect"), QStringLiteral("throughput")},
                                          {QStringLiteral("engine"), QStringLiteral("vector")},
                                          {QStringLiteral("ns"), -1.0}}});
        p.insert(QStringLiteral("explain"), bad);
        QVERIFY(!EvalProfile::fromJson(p, &error));
        QVERIFY2(error.contains(QStringLiteral("profile.explain")), qPrintable(error));
        // A profile without one (a Neuron host's) has none, and is no error.
        p.remove(QStringLiteral("explain"));
        const auto none = EvalProfile::fromJson(p, &error);
        QVERIFY(none && !none->explanation && error.isEmpty());
    }
    void parsesAndKeepsTheTimelineOutOfRaw()
    {
        const QJsonObject result{{QStringLiteral("status"), QStringLiteral("ok")}, {QStringLiteral("profile"), profile()}};
        const Evaluation e = Evaluation::fromJson(result);
        QVERIFY(e.profile);
        QCOMPARE(e.profile->lineCosts.size(), 1);
        QCOMPARE(e.profile->costOfLine(12)->totalNs(), 1100.0);
        QCOMPARE(e.profile->timeline->count(), 3);
        QCOMPARE(EvalProfile::Timeline::engineOfUnit(QStringLiteral("dma3")), int(EvalProfile::Dma));
        QCOMPARE(e.profile->timeline->endNs(), 1100.0);
        QVERIFY(!e.raw.value(QStringLiteral("profile")).toObject().contains(QStringLiteral("timeline")));
        QVERIFY(e.raw.value(QStringLiteral("profile")).toObject().contains(QStringLiteral("line_costs")));
        // What the workspace stores comes back with its line costs.
        QJsonObject stored = e.raw;
        const EvalProfilePtr again = Evaluation::profileFrom(stored);
        QCOMPARE(again->lineCosts.size(), 1);
        QVERIFY(!again->timeline);
        QCOMPARE(e.summaryJson(QStringLiteral("silu")).value(QStringLiteral("line_costs")).toArray().size(), 1);
    }

    void malformedProfilesAreRefusedWithTheReason_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<QString>("reason");
        QTest::newRow("short column") << "timeline/dur_ns" << QJsonValue(QJsonArray{1.0}) << "timeline.dur_ns has 1 entries";
        QTest::newRow("unit out of range") << "timeline/unit" << QJsonValue(QJsonArray{1, 0, 7}) << "timeline.unit holds 7";
        QTest::newRow("negative start") << "timeline/start_ns" << QJsonValue(QJsonArray{0.0, -1.0, 2.0}) << "timeline.start_ns holds -1";
        QTest::newRow("text in a column") << "timeline/line" << QJsonValue(QJsonArray{12, QStringLiteral("x"), 12}) << "timeline.line holds x";
        QTest::newRow("negative busy") << "engine_busy_ns" << QJsonValue(QJsonObject{{QStringLiteral("vector"), -5.0}}) << "engine_busy_ns";
        QTest::newRow("line cost without ns") << "line_costs" << QJsonValue(QJsonArray{QJsonObject{{QStringLiteral("line"), 3}}}) << "a line cost";
    }
    void malformedProfilesAreRefusedWithTheReason()
    {
        QFETCH(QString, path);
        QFETCH(QJsonValue, value);
        QFETCH(QString, reason);
        QJsonObject p = profile();
        if (path.startsWith(QStringLiteral("timeline/"))) {
            QJsonObject t = p.value(QStringLiteral("timeline")).toObject();
            t.insert(path.mid(9), value);
            p.insert(QStringLiteral("timeline"), t);
        } else {
            p.insert(path, value);
        }
        QString error;
        QVERIFY(!EvalProfile::fromJson(p, &error));
        QVERIFY2(error.contains(reason), qPrintable(error));
        // In a result, a bad profile leaves the evaluation without one and says why, never crashes.
        const Evaluation e = Evaluation::fromJson({{QStringLiteral("status"), QStringLiteral("ok")}, {QStringLiteral("profile"), p}});
        QVERIFY(!e.profile);
        QVERIFY(e.raw.value(QStringLiteral("profile_error")).toString().contains(reason));
        // No profile at all is not an error.
        QVERIFY(!EvalProfile::fromJson(QJsonValue(), &error));
        QVERIFY(error.isEmpty());
    }

    void chromeTraceHasEveryRequiredField()
    {
        const std::optional<EvalProfile> p = EvalProfile::fromJson(profile());
        QVERIFY(p && p->timeline);
        const QJsonObject doc = QJsonDocument::fromJson(ChromeTrace::toJson(*p->timeline, QStringLiteral("k \"1\".py"))).object();
        const QJsonArray events = doc.value(QStringLiteral("traceEvents")).toArray();
        int complete = 0;
        for (const QJsonValue &v : events) {
            const QJsonObject e = v.toObject();
            const QString ph = e.value(QStringLiteral("ph")).toString();
            QVERIFY(ph == QStringLiteral("X") || ph == QStringLiteral("M"));
            for (const char *key : {"name", "pid"})
                QVERIFY(e.contains(QLatin1StringView(key)));
            if (ph == QStringLiteral("X")) {
                ++complete;
                QVERIFY(e.contains(QStringLiteral("tid")) && e.contains(QStringLiteral("ts")) && e.contains(QStringLiteral("dur")));
            }
        }
        QCOMPARE(complete, 3);
        // Microseconds: the DMA at 0 ns for 300 ns.
        QCOMPARE(events.at(events.size() - 3).toObject().value(QStringLiteral("dur")).toDouble(), 0.3);
        QCOMPARE(doc.value(QStringLiteral("otherData")).toObject().value(QStringLiteral("kernel")).toString(), QStringLiteral("k \"1\".py"));
    }
};

QTEST_GUILESS_MAIN(TestEvalProfile)
#include "tst_evalprofile.moc"
