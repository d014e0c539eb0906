// InFlight, the search's outstanding work, on its own: a step ends exactly once, when its last work closes,
// however the work is given back.
#include "search/inflight.h"

#include <QTest>

class TestInFlight : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void idleOnlyWhenTheLastKeyCloses()
    {
        int idle = 0;
        InFlight work([&] { ++idle; });
        const InFlight::Key a = work.open();
        const InFlight::Key b = work.open();
        QVERIFY(a != 0 && b != 0 && a != b);
        QCOMPARE(work.count(), 2);
        work.close(a);
        QCOMPARE(idle, 0);
        work.close(b);
        QCOMPARE(idle, 1);
        QVERIFY(work.isIdle());
    }
    void closingTwiceCountsOnce()
    {
        // The miscount a counter allowed: one piece of work given back twice ended the step early.
        int idle = 0;
        InFlight work([&] { ++idle; });
        const InFlight::Key a = work.open();
        work.open();
        work.close(a);
        work.close(a);
        QCOMPARE(idle, 0);
        QCOMPARE(work.count(), 1);
    }
    void aTokenDestroyedWithoutFinishingReleases()
    {
        int idle = 0;
        InFlight work([&] { ++idle; });
        {
            const InFlight::Token hold = work.hold();
            QCOMPARE(work.count(), 1);
            QVERIFY(work.isOpen(hold.key()));
        }
        QCOMPARE(idle, 1);
        QVERIFY(work.isIdle());
    }
    void aRedeemedKeyClosesWithItsToken()
    {
        int idle = 0;
        InFlight work([&] { ++idle; });
        const InFlight::Key call = work.open();
        {
            const InFlight::Token done = work.redeem(call);
            const InFlight::Key next = work.open(); // what the handler starts is out before it returns
            QVERIFY(work.isOpen(next));
        }
        QCOMPARE(idle, 0);
        QCOMPARE(work.count(), 1);
    }
    void aMovedTokenReleasesOnce()
    {
        int idle = 0;
        InFlight work([&] { ++idle; });
        work.open(); // keeps the step open
        InFlight::Token first = work.hold();
        InFlight::Token second = std::move(first);
        first.release(); // moved from: nothing
        QCOMPARE(work.count(), 2);
        second.release();
        second.release();
        QCOMPARE(work.count(), 1);
        QCOMPARE(idle, 0);
    }
    void clearForgetsWithoutIdle()
    {
        int idle = 0;
        InFlight work([&] { ++idle; });
        const InFlight::Key stale = work.open();
        InFlight::Token hold = work.hold();
        work.clear(); // the run ended
        QVERIFY(work.isIdle());
        hold.release();
        work.close(stale); // a late reply of the ended run
        QCOMPARE(idle, 0);
        // Keys are never reused, so a stale key cannot close the next run's work.
        const InFlight::Key fresh = work.open();
        QVERIFY(fresh != stale && fresh != hold.key());
        work.close(stale);
        QCOMPARE(work.count(), 1);
    }
    void idleMayOpenMoreWork()
    {
        // The next step starts from idle(): its work must count, and its own end must call idle() again.
        int idle = 0;
        InFlight work;
        work.setIdle([&] {
            if (++idle == 1) {
                const InFlight::Token next = work.hold();
            }
        });
        work.close(work.open());
        QCOMPARE(idle, 2);
        QVERIFY(work.isIdle());
    }
};

QTEST_GUILESS_MAIN(TestInFlight)
#include "tst_inflight.moc"
