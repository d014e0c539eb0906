#include "study/studyresult.h"

#include <QJsonArray>
#include <QTest>

// StudyResult's arithmetic against figures worked out by hand (in the comments) from a state written here:
// two arms x two repeats x two rounds, one arm priced and one not.
class TestStudyResult : public QObject
{
    Q_OBJECT

    static RunMeasure measure(double best, double speedup, std::optional<double> usd, qint64 tokens,
                              int evals, double device, int unpriced = 0)
    {
        RunMeasure m;
        m.bestPercentOfPeak = best;
        m.speedup = speedup;
        m.costUsd = usd;
        m.tokens = tokens;
        m.calls = int(tokens / 500);
        m.callsWithoutCost = unpriced;
        m.evaluations = evals;
        m.deviceSeconds = device;
        return m;
    }

    static StudyState state(bool bPriced)
    {
        StudyState s;
        s.id = QStringLiteral("feed0001");
        s.tasks = {QStringLiteral("swiglu")};
        s.budget = {StudyBudget::Kind::Evaluations, 4, 2};
        QString error;
        s.arms << *ArmSpec::parse(QStringLiteral("a=beam"), &error)
               << *ArmSpec::parse(QStringLiteral("b=sample,n=8"), &error);
        s.repeats = 2;
        s.planRuns(); // a r1, b r1, a r2, b r2
        s.round = 2;
        s.finished = true;
        const auto usd = [bPriced](double v) { return bPriced ? std::optional<double>(v) : std::nullopt; };
        s.runs[0].checkpoints = {{1, measure(10, 1.5, 0.01, 1000, 2, 1.0)},
                                 {2, measure(20, 2.0, 0.03, 3000, 4, 2.0)}};
        s.runs[2].checkpoints = {{1, measure(14, 1.2, 0.02, 2000, 2, 1.5)},
                                 {2, measure(16, 1.8, 0.05, 5000, 5, 3.0)}};
        // b's runs ended by their own rule in round 1 (one iteration of samples): they stand as they are.
        s.runs[1].checkpoints = {{1, measure(8, 1.1, usd(0.004), 1500, 3, 2.0, bPriced ? 0 : 3)}};
        s.runs[3].checkpoints = {{1, measure(12, 1.3, usd(0.006), 2500, 3, 4.0, bPriced ? 0 : 2)}};
        for (int i : {1, 3}) {
            s.runs[i].done = true;
            s.runs[i].stopReason = QStringLiteral("iterations");
        }
        for (int i = 0; i < 4; ++i)
            s.runs[i].sessionId = QStringLiteral("session-%1").arg(i);
        return s;
    }

private Q_SLOTS:
    void rowsAreMeansWithTheirSpread()
    {
        const StudyResult r(state(false));
        QCOMPARE(r.rows().size(), 2);
        const StudyResult::Row &a = r.rows().at(0);
        QCOMPARE(a.arm, QStringLiteral("a"));
        QCOMPARE(a.runs, 2);
        // best % of peak: (20 + 16) / 2 = 18, from 16 to 20; speedup (2.0 + 1.8) / 2 = 1.9
        QCOMPARE(a.percentOfPeak.mean, 18.0);
        QCOMPARE(a.percentOfPeak.min, 16.0);
        QCOMPARE(a.percentOfPeak.max, 20.0);
        QVERIFY(qAbs(a.speedup.mean - 1.9) < 1e-12);
        QVERIFY(a.costUsd && qAbs(*a.costUsd - 0.04) < 1e-12); // (0.03 + 0.05) / 2
        QCOMPARE(a.tokens, 4000.0);                            // (3000 + 5000) / 2
        QCOMPARE(a.evaluations, 4.5);
        QCOMPARE(a.deviceSeconds, 2.5);
        const StudyResult::Row &b = r.rows().at(1);
        QCOMPARE(b.percentOfPeak.mean, 10.0); // (8 + 12) / 2
        QVERIFY(!b.costUsd);                  // unpriced: no money figure at all, not a partial one
        QCOMPARE(b.unpricedCalls, 5);
        QCOMPARE(b.tokens, 2000.0);
    }

    void unpricedArmsMoveTheComparisonToTokensAndSayWhy()
    {
        const StudyResult unpriced(state(false));
        QCOMPARE(unpriced.basis(), QStringLiteral("tokens"));
        QVERIFY2(unpriced.note().contains(QStringLiteral("arm b")) &&
                     unpriced.note().contains(QStringLiteral("tokens and evaluations")),
                 qPrintable(unpriced.note()));
        QVERIFY(unpriced.table().contains(QStringLiteral("note: ")));
        QVERIFY(unpriced.table().contains(QStringLiteral("unpriced")));
        const StudyResult priced(state(true));
        QCOMPARE(priced.basis(), QStringLiteral("usd"));
        QVERIFY(priced.note().isEmpty());
    }

    // One line per arm; after each round the mean cost against the mean best with its spread. An arm that
    // ended stands where it ended.
    void chartData()
    {
        const StudyResult r(state(false));
        QCOMPARE(r.chart().size(), 2);
        const StudyResult::Series &a = r.chart().at(0);
        QCOMPARE(a.points.size(), 2);
        QCOMPARE(a.points.at(0).cost, 1500.0); // (1000 + 2000) / 2 tokens
        QCOMPARE(a.points.at(0).percentOfPeak.mean, 12.0);
        QCOMPARE(a.points.at(0).percentOfPeak.min, 10.0);
        QCOMPARE(a.points.at(0).percentOfPeak.max, 14.0);
        QCOMPARE(a.points.at(1).cost, 4000.0);
        QCOMPARE(a.points.at(1).percentOfPeak.mean, 18.0);
        const StudyResult::Series &b = r.chart().at(1);
        QCOMPARE(b.points.size(), 2);
        QCOMPARE(b.points.at(1).cost, 2000.0);
        QCOMPARE(b.points.at(1).percentOfPeak.mean, 10.0);
        const StudyResult priced(state(true));
        QVERIFY(qAbs(priced.chart().at(0).points.at(0).cost - 0.015) < 1e-12); // (0.01 + 0.02) / 2 USD
        // The JSON carries the same points.
        const QJsonArray points = priced.toJson()
                                      .value(QStringLiteral("chart"))
                                      .toArray()
                                      .at(0)
                                      .toObject()
                                      .value(QStringLiteral("points"))
                                      .toArray();
        QCOMPARE(points.size(), 2);
        QCOMPARE(points.at(1)
                     .toObject()
                     .value(QStringLiteral("best_percent_of_peak"))
                     .toObject()
                     .value(QStringLiteral("max")),
                 20.0);
    }

    // A study cut short: a point stands for every repeat or none, and the table says it is partial.
    void partialStudy()
    {
        StudyState s = state(false);
        s.runs[2].checkpoints.removeLast();
        s.finished = false;
        const StudyResult r(s);
        QCOMPARE(r.chart().at(0).points.size(), 1);
        QCOMPARE(r.rows().at(0).percentOfPeak.mean, 17.0); // (20 + 14) / 2: each run where it stands
        QVERIFY(r.table().contains(QStringLiteral("partial: round 2 of 2")));
    }

    void csvHasOneLinePerRun()
    {
        const QStringList lines = StudyResult(state(false)).csv().split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 5);
        QVERIFY(lines.at(0).startsWith(QStringLiteral("study,task,arm,repeat,session,rounds,")));
        QCOMPARE(lines.at(1),
                 QStringLiteral(
                     "feed0001,swiglu,a,1,session-0,2,20.000000,2.000000,0.030000000,3000,4,2.000000,0,"));
        QCOMPARE(lines.at(2),
                 QStringLiteral(
                     "feed0001,swiglu,b,1,session-1,1,8.000000,1.100000,,1500,3,2.000000,3,iterations"));
    }

    void tableShowsSpread()
    {
        const QString table = StudyResult(state(false)).table();
        QVERIFY2(table.contains(QStringLiteral("18.00 [16.00-20.00]")), qPrintable(table));
        QVERIFY2(table.contains(QStringLiteral("1.900 [1.800-2.000]")), qPrintable(table));
        QVERIFY2(table.contains(QStringLiteral("cost basis tokens")), qPrintable(table));
    }
};

QTEST_GUILESS_MAIN(TestStudyResult)
#include "tst_studyresult.moc"
