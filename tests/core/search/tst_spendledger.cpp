// SpendLedger on its own: the sums the budgets read, and the step's call outcomes.
#include "search/spendledger.h"

#include <QTest>

namespace {
ChatReply reply(qint64 in, qint64 out, std::optional<double> cost)
{
    ChatReply r;
    r.usage = TokenUsage{};
    r.usage->inputTokens = in;
    r.usage->outputTokens = out;
    r.costUsd = cost;
    return r;
}
ChatReply failed(const QString &text)
{
    ChatReply r;
    r.error = ChatReply::Error::Http;
    r.errorText = text;
    return r;
}
} // namespace

class TestSpendLedger : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sumsByRole()
    {
        SpendLedger ledger;
        ledger.book(AgentRole::Planner, reply(100, 20, 0.5));
        ledger.book(AgentRole::Executor, reply(10, 5, 0.25));
        ledger.book(AgentRole::Planner, reply(1, 1, std::nullopt));    // unpriced: tokens only
        ledger.book(AgentRole::Fixer, failed(QStringLiteral("down"))); // no usage, no cost
        QCOMPARE(ledger.tokens(), qint64(137));
        QCOMPARE(ledger.costUsd(), 0.75);
        QCOMPARE(ledger.costByRole().value(AgentRoles::name(AgentRole::Planner)), 0.5);
        QCOMPARE(ledger.costByRole().value(AgentRoles::name(AgentRole::Executor)), 0.25);
        QVERIFY(!ledger.costByRole().contains(AgentRoles::name(AgentRole::Fixer)));
        const SearchProgress p = ledger.progress(12.5);
        QCOMPARE(p.costUsd, 0.75);
        QCOMPARE(p.tokens, qint64(137));
        QCOMPARE(p.wallSeconds, 12.5);
    }
    void restoreThenBook()
    {
        SpendLedger ledger;
        ledger.restore(2.0, 1000, {{AgentRoles::name(AgentRole::Planner), 2.0}});
        ledger.book(AgentRole::Planner, reply(5, 5, 1.0));
        QCOMPARE(ledger.costUsd(), 3.0);
        QCOMPARE(ledger.tokens(), qint64(1010));
        QCOMPARE(ledger.costByRole().value(AgentRoles::name(AgentRole::Planner)), 3.0);
        ledger.clear();
        QCOMPARE(ledger.costUsd(), 0.0);
        QCOMPARE(ledger.tokens(), qint64(0));
        QVERIFY(ledger.costByRole().isEmpty());
    }
    void theStepsCalls()
    {
        SpendLedger ledger;
        QVERIFY(!ledger.everyCallFailed()); // no call, no verdict
        ledger.countCall(failed(QStringLiteral("first")));
        ledger.countCall(failed(QStringLiteral("second")));
        QVERIFY(ledger.everyCallFailed());
        QCOMPARE(ledger.callsFailed(), 2);
        QCOMPARE(ledger.firstCallError(), QStringLiteral("first"));
        ledger.countCall(reply(1, 1, std::nullopt));
        QVERIFY(!ledger.everyCallFailed());
        ledger.startStep();
        QCOMPARE(ledger.callsFailed(), 0);
        QVERIFY(ledger.firstCallError().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestSpendLedger)
#include "tst_spendledger.moc"
