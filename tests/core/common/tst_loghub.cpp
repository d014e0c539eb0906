#include "common/logcategories.h"
#include "common/loghub.h"

#include <QSignalSpy>
#include <QTest>
#include <QThread>

class TestLogHub : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { LogHub::install(); }

    void collectsMessagesWithCategoryAndLevel()
    {
        QSignalSpy spy(LogHub::instance(), &LogHub::recordAdded);
        qCWarning(lcHosts) << "host lost";
        QVERIFY(spy.wait(1000));
        const LogRecord record = spy.takeFirst().at(0).value<LogRecord>();
        QCOMPARE(record.category, QStringLiteral("accelopt.hosts"));
        QCOMPARE(record.type, QtWarningMsg);
        QVERIFY(record.message.contains(QStringLiteral("host lost")));
        QCOMPARE(LogHub::instance()->records().last().message, record.message);
        QTest::qWait(50);
        QCOMPARE(spy.size(), 0); // one message, one record
    }

    void messagesFromOtherThreadsArrive()
    {
        QSignalSpy spy(LogHub::instance(), &LogHub::recordAdded);
        QThread *thread = QThread::create([] { qCInfo(lcStore) << "from a worker"; });
        thread->start();
        thread->wait();
        delete thread;
        QTRY_VERIFY(!spy.isEmpty());
        QCOMPARE(spy.last().at(0).value<LogRecord>().category, QStringLiteral("accelopt.store"));
    }

    void boundedRingKeepsNewest()
    {
        for (int i = 0; i < LogHub::capacity + 10; ++i)
            qCDebug(lcCore) << "line" << i;
        const QList<LogRecord> records = LogHub::instance()->records();
        QCOMPARE(records.size(), LogHub::capacity);
        QVERIFY(records.last().message.endsWith(QString::number(LogHub::capacity + 9)));
        QVERIFY(records.first().message.endsWith(QString::number(10)));
    }
};

QTEST_GUILESS_MAIN(TestLogHub)
#include "tst_loghub.moc"
