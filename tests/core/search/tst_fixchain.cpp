#include "model/kernelnormalizer.h"
#include "search/fixchain.h"

#include <QTest>

// FixChain alone: which failed kernels are not worth another fixer call (issue 33: the fixer was asked again
// and again to fix a kernel identical to one it had already failed on).
class TestFixChain : public QObject
{
    Q_OBJECT

    static const QString broken() { return QStringLiteral("def kernel(x):\n    return nl.no_such_op(x)\n"); }

    static Candidate make(const QString &id, const QString &parent, Candidate::Origin origin, int round,
                          const QString &source)
    {
        Candidate c;
        c.id = id;
        c.parentId = parent;
        c.origin = origin;
        c.fixRound = round;
        c.source = source;
        c.sourceHash = KernelNormalizer::hash(source);
        return c;
    }
    static Evaluation failed(const QString &reusedFrom = QString())
    {
        Evaluation e;
        e.status = EvalStatus::CompileError;
        e.error = QStringLiteral("line 2: nl has no attribute no_such_op");
        e.reusedFrom = reusedFrom;
        return e;
    }

    QHash<QString, Candidate> m_all;
    void add(const Candidate &c) { m_all.insert(c.id, c); }

private Q_SLOTS:
    void init()
    {
        m_all.clear();
        add(make(QStringLiteral("base"), QString(), Candidate::Origin::Baseline, 0,
                 QStringLiteral("def kernel(x):\n")));
        add(make(QStringLiteral("e"), QStringLiteral("base"), Candidate::Origin::Executor, 0, broken()));
    }

    void anExecutorsKernelAlwaysGetsItsFirstFix()
    {
        QVERIFY(
            !FixChain::repeatOf(m_all.value(QStringLiteral("e")), failed(QStringLiteral("other")), m_all));
    }

    void theFixerReturningTheKernelItWasShownEndsTheChain()
    {
        // The same kernel with a comment: the same normalized source.
        const Candidate f1 = make(QStringLiteral("f1"), QStringLiteral("e"), Candidate::Origin::Fixer, 1,
                                  QStringLiteral("# fixed\n") + broken());
        add(f1);
        const auto repeat = FixChain::repeatOf(f1, failed(QStringLiteral("e")), m_all);
        QVERIFY(repeat);
        QCOMPARE(repeat->candidateId, QStringLiteral("e"));
        QVERIFY(repeat->ownChain);
        QCOMPARE(
            FixChain::reason(f1, *repeat, failed()),
            QStringLiteral("the fix chain of f1 stops at round 1: the fixer returned the same kernel "
                           "(normalized) as e, an earlier kernel of this chain, which already failed "
                           "(compile_error); asking again would show it the same kernel and the same error"));
    }

    void aKernelFromEarlierInTheChainEndsItToo()
    {
        const QString other = QStringLiteral("def kernel(x):\n    return nl.other_wrong_op(x)\n");
        add(make(QStringLiteral("f1"), QStringLiteral("e"), Candidate::Origin::Fixer, 1, other));
        const Candidate f2 =
            make(QStringLiteral("f2"), QStringLiteral("f1"), Candidate::Origin::Fixer, 2, broken());
        add(f2);
        const auto repeat = FixChain::repeatOf(f2, failed(), m_all);
        QVERIFY(repeat);
        QCOMPARE(repeat->candidateId, QStringLiteral("e"));
        QVERIFY(repeat->ownChain);
    }

    void aNewKernelGoesOn()
    {
        const Candidate f1 = make(QStringLiteral("f1"), QStringLiteral("e"), Candidate::Origin::Fixer, 1,
                                  QStringLiteral("def kernel(x):\n    return nl.silu(x)\n"));
        add(f1);
        QVERIFY(!FixChain::repeatOf(f1, failed(), m_all));
    }

    void aTwinThatFailedElsewhereEndsTheChain()
    {
        const QString elsewhere = QStringLiteral("def kernel(x):\n    return nl.third(x)\n");
        add(make(QStringLiteral("e2"), QStringLiteral("base"), Candidate::Origin::Executor, 0, elsewhere));
        const Candidate f1 =
            make(QStringLiteral("f1"), QStringLiteral("e"), Candidate::Origin::Fixer, 1, elsewhere);
        add(f1);
        const auto repeat = FixChain::repeatOf(f1, failed(QStringLiteral("e2")), m_all);
        QVERIFY(repeat);
        QCOMPARE(repeat->candidateId, QStringLiteral("e2"));
        QVERIFY(!repeat->ownChain);
        QVERIFY(FixChain::reason(f1, *repeat, failed())
                    .contains(QStringLiteral("a kernel already measured in this "
                                             "session")));
    }

    void aParentLinkThatLoopsEnds()
    {
        // Only damaged data could make one; the walk must still end.
        add(make(QStringLiteral("a"), QStringLiteral("b"), Candidate::Origin::Fixer, 1,
                 QStringLiteral("a\n")));
        add(make(QStringLiteral("b"), QStringLiteral("a"), Candidate::Origin::Fixer, 1,
                 QStringLiteral("b\n")));
        const Candidate c = make(QStringLiteral("c"), QStringLiteral("a"), Candidate::Origin::Fixer, 2,
                                 QStringLiteral("c\n"));
        QVERIFY(!FixChain::repeatOf(c, failed(), m_all));
    }
};

QTEST_GUILESS_MAIN(TestFixChain)
#include "tst_fixchain.moc"
