#include "search/stoprules.h"

#include <QTest>

class TestStopRules : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void runsUntilT()
    {
        SearchConfig c;
        c.iterations = 3;
        SearchProgress p;
        QCOMPARE(StopRules::check(c, p), StopReason::None);
        p.iterationsDone = 2;
        QCOMPARE(StopRules::check(c, p), StopReason::None);
        p.iterationsDone = 3;
        QCOMPARE(StopRules::check(c, p), StopReason::Iterations);
    }
    void budgets()
    {
        SearchConfig c;
        SearchProgress p;
        p.costUsd = 1e9;
        p.tokens = 1e12;
        p.wallSeconds = 1e9;
        QCOMPARE(StopRules::check(c, p), StopReason::None); // 0 = no limit
        c.budgetWallSeconds = 60;
        QCOMPARE(StopRules::checkBudgets(c, p), StopReason::WallTimeBudget);
        c.budgetTokens = 1000;
        QCOMPARE(StopRules::checkBudgets(c, p), StopReason::TokenBudget);
        c.budgetUsd = 1.0;
        QCOMPARE(StopRules::check(c, p), StopReason::MoneyBudget);
        p.costUsd = 0.99;
        p.tokens = 999;
        p.wallSeconds = 59;
        QCOMPARE(StopRules::check(c, p), StopReason::None);
    }
    void targetAndPatience()
    {
        SearchConfig c;
        SearchProgress p;
        p.bestPercentOfPeak = 80;
        QCOMPARE(StopRules::check(c, p), StopReason::None);
        c.targetPercentOfPeak = 75;
        QCOMPARE(StopRules::check(c, p), StopReason::TargetReached);
        c.targetPercentOfPeak = 0;
        p.iterationsWithoutImprovement = 5;
        QCOMPARE(StopRules::check(c, p), StopReason::None); // patience 0 = off
        c.patience = 5;
        QCOMPARE(StopRules::check(c, p), StopReason::NoImprovement);
        c.patience = 6;
        QCOMPARE(StopRules::check(c, p), StopReason::None);
    }
    void names()
    {
        QCOMPARE(StopRules::name(StopReason::MoneyBudget), QStringLiteral("money_budget"));
        QVERIFY(!StopRules::describe(StopReason::NoImprovement).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestStopRules)
#include "tst_stoprules.moc"
