#include "itemmodels/experiencelistmodel.h"
#include "memory/experiencestore.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

// ExperienceListModel holds snapshots only (issue 35): it asks through a requester (in the window, the
// engine's thread) and shows what the answers bring. Here the test is the engine: it answers the requests it
// chooses, in the order it chooses, from a real memory file.
class TestExperienceListModel : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<ExperienceStore> m_store;
    QList<QPair<quint64, ExperiencePageRequest>> m_asked;
    quint64 m_lastJob = 0;

    ExperienceListModel::Requester requester()
    {
        return [this](const ExperiencePageRequest &request) {
            m_asked.append({++m_lastJob, request});
            return m_lastJob;
        };
    }
    // Answers the request asked `index`-th as the engine would.
    void answer(ExperienceListModel &model, int index)
    {
        const auto [job, request] = m_asked.at(index);
        int offset = request.offset;
        int focusRow = -1;
        if (request.focusId > 0) {
            focusRow = m_store->rowOf(request.filter, request.sort, request.focusId);
            if (focusRow >= 0)
                offset = focusRow - focusRow % request.limit;
        }
        std::optional<ExperiencePage> page =
            m_store->page(request.filter, request.sort, offset, request.limit);
        QVERIFY2(page, qPrintable(m_store->lastError()));
        page->focusRow = focusRow;
        model.pageArrived(job, *page, {});
    }

private Q_SLOTS:
    void init()
    {
        m_asked.clear();
        m_store = std::make_unique<ExperienceStore>(
            m_dir.filePath(QStringLiteral("memory-%1.sqlite").arg(QTest::currentTestFunction())));
        QVERIFY(m_store->open());
        for (int i = 0; i < 300; ++i) { // three pages of 128
            ExperienceRecord r;
            r.task = i % 2 ? QStringLiteral("silu") : QStringLiteral("matmul");
            r.target = QStringLiteral("trn2");
            r.experience.title = QStringLiteral("lesson %1").arg(i, 3, 10, QLatin1Char('0'));
            r.experience.lesson = QStringLiteral("word%1 common").arg(i);
            r.experience.speedup = 1.0 + i / 100.0;
            r.created = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC).addSecs(i);
            QVERIFY2(m_store->add(r), qPrintable(m_store->lastError()));
        }
    }
    void cleanup() { m_store.reset(); }

    void showsOnlyWhatTheAnswersBring()
    {
        ExperienceListModel model(requester());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy listed(&model, &ExperienceListModel::listed);
        model.setFilter({});
        QCOMPARE(m_asked.size(), 1);
        QVERIFY(model.isWaiting());
        QCOMPARE(model.rowCount(), 0); // nothing until the answer
        answer(model, 0);
        QVERIFY(!model.isWaiting());
        QCOMPARE(listed.size(), 1);
        QCOMPARE(model.rowCount(), 300);
        QCOMPARE(model.storeCount(), 300);
        QCOMPARE(model.index(0, ExperienceListModel::Title).data().toString(), QStringLiteral("lesson 299"));

        // A row beyond the first page is asked for when read, empty until its page comes, then announced.
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QVERIFY(!model.index(200, ExperienceListModel::Title).data().isValid());
        QCOMPARE(m_asked.size(), 2);
        QCOMPARE(m_asked.at(1).second.offset, 128);
        model.index(201, ExperienceListModel::Title).data(); // the same page: not asked twice
        QCOMPARE(m_asked.size(), 2);
        answer(model, 1);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(model.index(200, ExperienceListModel::Title).data().toString(),
                 QStringLiteral("lesson 099"));
        QCOMPARE(model.idAt(200), model.index(200, 0).data(Qt::UserRole).toLongLong());
    }

    void staleAnswersAreDropped()
    {
        ExperienceListModel model(requester());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        MemoryFilter silu;
        silu.task = QStringLiteral("silu");
        model.setFilter({});
        model.setFilter(silu); // typed on before the first answer came
        answer(model, 1);
        QCOMPARE(model.rowCount(), 150);
        answer(model, 0); // the older list: dropped
        QCOMPARE(model.rowCount(), 150);
        QCOMPARE(model.index(0, ExperienceListModel::Task).data().toString(), QStringLiteral("silu"));
    }

    void keepsTheSelectionsRowAndSorts()
    {
        ExperienceListModel model(requester());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFilter({});
        answer(model, 0);
        const qint64 oldest = m_store->page({}, {ExperienceSort::Key::Updated, false}, 0, 1)->rows.first().id;
        QSignalSpy listed(&model, &ExperienceListModel::listed);
        model.refresh(oldest);
        answer(model, 1);
        QCOMPARE(listed.size(), 1);
        QCOMPARE(listed.first().at(1).toLongLong(), oldest);
        QCOMPARE(listed.first().at(2).toInt(), 299);
        QCOMPARE(model.idAt(299), oldest); // its page came with the answer
        model.sort(ExperienceListModel::Speedup, Qt::DescendingOrder);
        QCOMPARE(m_asked.last().second.sort.key, ExperienceSort::Key::Speedup);
        QVERIFY(m_asked.last().second.sort.descending);
        answer(model, int(m_asked.size()) - 1);
        QCOMPARE(model.index(0, ExperienceListModel::Speedup).data().toString(), QStringLiteral("3.99×"));
    }

    void aFailedListKeepsTheOldOneAndAChangedMemoryIsNoticed()
    {
        ExperienceListModel model(requester());
        model.setFilter({});
        answer(model, 0);
        QSignalSpy listed(&model, &ExperienceListModel::listed);
        model.refresh();
        model.pageArrived(m_asked.last().first, {}, QStringLiteral("database is locked"));
        QCOMPARE(listed.size(), 1);
        QVERIFY(!listed.first().at(0).toBool());
        QCOMPARE(model.lastError(), QStringLiteral("database is locked"));
        QCOMPARE(model.rowCount(), 300);

        // A page comes back from a list of another length: the memory changed since the list was made.
        QSignalSpy stale(&model, &ExperienceListModel::stale);
        model.index(250, 0).data();
        QVERIFY(m_store->remove(model.idAt(0)));
        answer(model, int(m_asked.size()) - 1);
        QCOMPARE(stale.size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestExperienceListModel)
#include "tst_experiencelistmodel.moc"
