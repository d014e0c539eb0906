#include "advice/advisor.h"
#include "advice/ruleset.h"
#include "common/datapaths.h"
#include "model/evaluation.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTest>

// The shipped rules file, rule by rule, on the cases in rulecases.json: each rule fires on a profile built to
// trigger it and stays quiet when one value moves just across its threshold. A rule without a case fails, so
// a new rule arrives with its evidence.
class TestShippedRules : public QObject
{
    Q_OBJECT

    RuleSet m_rules;
    QJsonArray m_cases;

    // A runner result line (nkibench/runner/README.md, "Result") carrying the case's values where the runner
    // puts them.
    static Evaluation evaluationOf(const QJsonObject &profile)
    {
        QJsonObject metrics = profile;
        QJsonObject roofline;
        QJsonObject line{{QStringLiteral("id"), QStringLiteral("case")},
                         {QStringLiteral("status"), QStringLiteral("ok")},
                         {QStringLiteral("correct"), true}};
        for (const char *key : {"bound", "percent_of_peak"})
            if (metrics.contains(QLatin1StringView(key)))
                roofline.insert(QLatin1StringView(key), metrics.take(QLatin1StringView(key)));
        if (metrics.contains(QLatin1StringView("latency_ms")))
            line.insert(QStringLiteral("latency_ms"),
                        QJsonObject{{QStringLiteral("mean"), metrics.take(QLatin1StringView("latency_ms"))}});
        line.insert(QStringLiteral("roofline"), roofline);
        line.insert(QStringLiteral("metrics"), metrics);
        return Evaluation::fromJson(line);
    }

    static QJsonObject patched(QJsonObject profile, const QJsonObject &patch)
    {
        for (auto it = patch.begin(); it != patch.end(); ++it) {
            if (it.value().isNull())
                profile.remove(it.key());
            else
                profile.insert(it.key(), it.value());
        }
        return profile;
    }

    std::optional<Finding> findingOf(const QString &rule, const QJsonObject &profile) const
    {
        for (const Finding &f : Advisor::evaluate(m_rules, evaluationOf(profile)))
            if (f.ruleId == rule)
                return f;
        return std::nullopt;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_rules.load(DataPaths::recommendationsFile()), qPrintable(m_rules.errors().join(u'\n')));
        QFile file(QStringLiteral(ACCELOPT_SOURCE_DIR "/tests/core/advice/rulecases.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        m_cases = QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("cases")).toArray();
        QVERIFY(!m_cases.isEmpty());
    }

    void shippedFileLoads()
    {
        QVERIFY(m_rules.ok());
        QVERIFY(m_rules.errors().isEmpty());
        QVERIFY(m_rules.rules().size() >= 8);
        QVERIFY2(RuleSet::shipped().ok(), qPrintable(RuleSet::shipped().errors().join(u'\n')));
        QCOMPARE(RuleSet::shipped().rules().size(), m_rules.rules().size());
        for (const Rule &r : m_rules.rules())
            QVERIFY2(r.why.contains(QStringLiteral("nki-facts")), qPrintable(r.id + " cites no fact"));
    }

    void everyRuleHasACase()
    {
        QSet<QString> covered;
        for (const QJsonValue &c : std::as_const(m_cases))
            covered.insert(c.toObject().value(QStringLiteral("rule")).toString());
        for (const Rule &r : m_rules.rules())
            QVERIFY2(covered.contains(r.id), qPrintable(r.id + " has no case in rulecases.json"));
        for (const QString &id : covered) {
            bool known = false;
            for (const Rule &r : m_rules.rules())
                known = known || r.id == id;
            QVERIFY2(known, qPrintable("rulecases.json names a rule the file lacks: " + id));
        }
    }

    void ruleFiresAndStaysSilent_data()
    {
        QTest::addColumn<QJsonObject>("testCase");
        QHash<QString, int> seen;
        for (const QJsonValue &c : std::as_const(m_cases)) {
            const QString rule = c.toObject().value(QStringLiteral("rule")).toString();
            const int n = ++seen[rule];
            QTest::newRow(qPrintable(n == 1 ? rule : QStringLiteral("%1 #%2").arg(rule).arg(n)))
                << c.toObject();
        }
    }

    void ruleFiresAndStaysSilent()
    {
        QFETCH(QJsonObject, testCase);
        const QString rule = testCase.value(QStringLiteral("rule")).toString();
        const QJsonObject profile = testCase.value(QStringLiteral("profile")).toObject();

        const std::optional<Finding> f = findingOf(rule, profile);
        QVERIFY2(f, "the rule does not fire on its triggering profile");
        QVERIFY(!f->title.isEmpty());
        QVERIFY(!f->evidence.isEmpty());
        QVERIFY(!f->cited.isEmpty());
        QVERIFY2(!f->advice.contains(u'{'), qPrintable(f->advice));
        for (const QJsonValue &want : testCase.value(QStringLiteral("advice")).toArray())
            QVERIFY2(f->advice.contains(want.toString()),
                     qPrintable(QStringLiteral("'%1' not in: %2").arg(want.toString(), f->advice)));
        QStringList evidence;
        for (const Evidence &e : f->evidence)
            evidence << e.text();
        for (const QJsonValue &want : testCase.value(QStringLiteral("evidence")).toArray())
            QVERIFY2(
                evidence.contains(want.toString()),
                qPrintable(QStringLiteral("'%1' not in: %2").arg(want.toString(), evidence.join(" | "))));

        const QJsonArray silent = testCase.value(QStringLiteral("silent")).toArray();
        QVERIFY2(!silent.isEmpty(), "a case needs at least one profile across a threshold");
        for (const QJsonValue &patch : silent)
            QVERIFY2(
                !findingOf(rule, patched(profile, patch.toObject())),
                qPrintable("fires with " + QJsonDocument(patch.toObject()).toJson(QJsonDocument::Compact)));
    }

    // A healthy kernel should not be told it has problems: an evaluation near its peak with busy, balanced
    // engines and large transfers only earns the near-roofline note.
    void healthyProfileIsQuiet()
    {
        const QJsonObject profile{{QStringLiteral("bound"), QStringLiteral("matmul")},
                                  {QStringLiteral("percent_of_peak"), 88},
                                  {QStringLiteral("tensor_engine_active_time_percent"), 0.97},
                                  {QStringLiteral("vector_engine_active_time_percent"), 0.3},
                                  {QStringLiteral("scalar_engine_active_time_percent"), 0.25},
                                  {QStringLiteral("gpsimd_engine_active_time_percent"), 0.0},
                                  {QStringLiteral("dma_active_time_percent"), 0.4},
                                  {QStringLiteral("dma_transfer_average_bytes"), 262144},
                                  {QStringLiteral("dma_transfer_count"), 512},
                                  {QStringLiteral("hardware_flops"), 5.5e11},
                                  {QStringLiteral("transpose_flops"), 0},
                                  {QStringLiteral("psum_read_bytes"), 6.7e7},
                                  {QStringLiteral("psum_write_bytes"), 2.1e9},
                                  {QStringLiteral("mm_arithmetic_intensity"), 683},
                                  {QStringLiteral("peak_flops_bandwidth_ratio"), 223.8},
                                  {QStringLiteral("spill_save_bytes"), 0},
                                  {QStringLiteral("spill_reload_bytes"), 0}};
        QStringList fired;
        for (const Finding &f : Advisor::evaluate(m_rules, evaluationOf(profile)))
            fired << f.ruleId;
        QCOMPARE(fired, QStringList{QStringLiteral("near-roofline")});
    }
};

QTEST_GUILESS_MAIN(TestShippedRules)
#include "tst_shippedrules.moc"
