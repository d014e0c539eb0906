#include "memory/experiencestore.h"

#include <QTemporaryDir>
#include <QTest>

// ExperienceStore::page, the memory browser's query (issue 35): filter, order and paging against a real SQLite
// file, the list following changes made through this connection and through another one, and bad requests
// answered with an error.
class TestExperiencePage : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<ExperienceStore> m_store;
    QString m_path;

    ExperienceRecord make(const QString &task, const QString &title, double speedup, const QString &lesson = {})
    {
        ExperienceRecord r;
        r.task = task;
        r.target = task == QStringLiteral("matmul") ? QStringLiteral("trn2") : QStringLiteral("trn1");
        r.sessionId = QStringLiteral("s-") + task;
        r.experience.title = title;
        r.experience.lesson = lesson.isEmpty() ? QStringLiteral("Lesson about %1.").arg(title) : lesson;
        r.experience.speedup = speedup;
        r.experience.snippetBefore = QStringLiteral("for i in nl.sequential_range(8):");
        r.experience.snippetAfter = QStringLiteral("for i in nl.affine_range(8):");
        return r;
    }
    qint64 add(ExperienceRecord r, int minutesAgo)
    {
        r.created = QDateTime(QDate(2026, 6, 1), QTime(12, 0), Qt::UTC).addSecs(-60 * minutesAgo);
        r.updated = r.created;
        if (!m_store->add(r))
            qWarning() << m_store->lastError();
        return r.id;
    }
    static QStringList titles(const ExperiencePage &page)
    {
        QStringList out;
        for (const ExperienceRow &row : page.rows)
            out << row.title;
        return out;
    }
    ExperiencePage page(const MemoryFilter &filter, ExperienceSort sort = {}, int offset = 0, int limit = 100)
    {
        const std::optional<ExperiencePage> p = m_store->page(filter, sort, offset, limit);
        if (!p)
            qWarning() << m_store->lastError();
        return p.value_or(ExperiencePage{});
    }

private Q_SLOTS:
    void init()
    {
        m_path = m_dir.filePath(QStringLiteral("memory-%1.sqlite").arg(QTest::currentTestFunction()));
        m_store = std::make_unique<ExperienceStore>(m_path);
        QVERIFY2(m_store->open(), qPrintable(m_store->lastError()));
        // Newest first by default: "Fuse" is the newest, "Tile" the oldest.
        add(make(QStringLiteral("silu"), QStringLiteral("Fuse the sigmoid"), 1.8), 1);
        const qint64 stationary = add(make(QStringLiteral("matmul"), QStringLiteral("Keep the stationary tile"), 2.4,
                                           QStringLiteral("Load the stationary operand once per k tile.")),
                                      2);
        add(make(QStringLiteral("matmul"), QStringLiteral("Transposing by DMA stalls"), 0.7), 3);
        add(make(QStringLiteral("rmsnorm"), QStringLiteral("accumulate in PSUM"), 1.3), 4);
        add(make(QStringLiteral("silu"), QStringLiteral("Tile the free axis"), 1.1), 5);
        QVERIFY(m_store->recordRetrieval(QStringLiteral("s-later"), 1, QStringLiteral("p1"), {stationary}));
        QVERIFY(m_store->recordOutcome(QStringLiteral("p1"), true));
    }
    void cleanup() { m_store.reset(); }

    void filtersAndTotals()
    {
        ExperiencePage all = page({});
        QCOMPARE(all.total, 5);
        QCOMPARE(all.storeTotal, 5);
        QCOMPARE(titles(all), (QStringList{"Fuse the sigmoid", "Keep the stationary tile", "Transposing by DMA stalls",
                                           "accumulate in PSUM", "Tile the free axis"}));
        QCOMPARE(all.rows.at(1).task, QStringLiteral("matmul"));
        QCOMPARE(all.rows.at(1).target, QStringLiteral("trn2"));
        QCOMPARE(all.rows.at(1).speedup, 2.4);
        QCOMPARE(all.rows.at(1).shown, 1);
        QCOMPARE(all.rows.at(1).decided, 1);
        QCOMPARE(all.rows.at(1).faster, 1);
        QCOMPARE(all.rows.at(1).updated, QDateTime(QDate(2026, 6, 1), QTime(11, 58), Qt::UTC));

        MemoryFilter f;
        f.task = QStringLiteral("matmul");
        QCOMPARE(page(f).total, 2);
        QCOMPARE(page(f).storeTotal, 5);
        f.kind = MemoryFilter::Kind::Negative;
        QCOMPARE(titles(page(f)), QStringList{"Transposing by DMA stalls"});
        f = {};
        f.target = QStringLiteral("trn1");
        f.minSpeedup = 1.2;
        f.maxSpeedup = 2.0;
        QCOMPARE(titles(page(f)), (QStringList{"Fuse the sigmoid", "accumulate in PSUM"}));
        f = {};
        f.sessionId = QStringLiteral("s-silu");
        QCOMPARE(page(f).total, 2);
        f = {};
        f.pinnedOnly = true;
        QCOMPARE(page(f).total, 0);
        f = {};
        f.since = QDate(2026, 6, 2);
        QCOMPARE(page(f).total, 0);
        // Text: every word, the last as a prefix; ranked by match.
        f = {};
        f.text = QStringLiteral("stationa");
        QCOMPARE(titles(page(f)), QStringList{"Keep the stationary tile"});
        // Typed FTS syntax is plain text: no error, no match.
        f.text = QStringLiteral("\"unbalanced (AND OR");
        const std::optional<ExperiencePage> odd = m_store->page(f, {}, 0, 10);
        QVERIFY2(odd, qPrintable(m_store->lastError()));
        QCOMPARE(odd->total, 0);
    }

    void ordersBreakTiesAndPage()
    {
        using Key = ExperienceSort::Key;
        QCOMPARE(titles(page({}, {Key::Speedup, true})).first(), QStringLiteral("Keep the stationary tile"));
        QCOMPARE(titles(page({}, {Key::Speedup, false})).first(), QStringLiteral("Transposing by DMA stalls"));
        // Title ignores case: "accumulate" comes first.
        QCOMPARE(titles(page({}, {Key::Title, false})).first(), QStringLiteral("accumulate in PSUM"));
        QCOMPARE(titles(page({}, {Key::HitRate, true})).first(), QStringLiteral("Keep the stationary tile"));
        QCOMPARE(titles(page({}, {Key::Updated, false})).first(), QStringLiteral("Tile the free axis"));

        // Paging: windows of two over the same order, the last one short, beyond the end empty.
        const ExperienceSort bySpeedup{Key::Speedup, true};
        QStringList walked;
        for (int offset = 0; offset < 6; offset += 2) {
            const ExperiencePage p = page({}, bySpeedup, offset, 2);
            QCOMPARE(p.total, 5);
            QCOMPARE(p.offset, offset);
            QCOMPARE(p.rows.size(), std::min(2, 5 - offset));
            walked << titles(p);
        }
        QCOMPARE(walked, titles(page({}, bySpeedup)));
        QVERIFY(page({}, bySpeedup, 10, 2).rows.isEmpty());
        QCOMPARE(page({}, bySpeedup, 10, 2).total, 5);

        // The row of an experience in a list, and -1 where the filter leaves it out.
        const qint64 fuse = page({}).rows.first().id;
        QCOMPARE(m_store->rowOf({}, bySpeedup, fuse), 1);
        MemoryFilter matmul;
        matmul.task = QStringLiteral("matmul");
        QCOMPARE(m_store->rowOf(matmul, bySpeedup, fuse), -1);
        QVERIFY(m_store->lastError().isEmpty());
    }

    void followsChangesFromThisAndOtherConnections()
    {
        const ExperienceSort newest;
        QCOMPARE(page({}, newest, 0, 2).total, 5);
        // This connection: a pin moves it to the top of the default order.
        const qint64 tile = page({}).rows.last().id;
        QVERIFY(m_store->setPinned(tile, true));
        ExperiencePage now = page({}, newest, 0, 2);
        QCOMPARE(now.rows.first().id, tile);
        QVERIFY(now.rows.first().pinned);
        // Another connection (the CLI, a second window) adds and removes: the next page says so.
        {
            ExperienceStore other(m_path);
            QVERIFY(other.open());
            ExperienceRecord r = make(QStringLiteral("softmax"), QStringLiteral("Exp on the scalar engine"), 1.5);
            QVERIFY(other.add(r));
            QVERIFY(other.remove(tile));
        }
        now = page({}, newest, 0, 2);
        QCOMPARE(now.total, 5);
        QCOMPARE(now.storeTotal, 5);
        QCOMPARE(now.rows.first().title, QStringLiteral("Exp on the scalar engine"));
        QCOMPARE(m_store->rowOf({}, newest, tile), -1);
    }

    void badRequestsAreRefusedWithAReason()
    {
        QVERIFY(!m_store->page({}, {}, -1, 10));
        QVERIFY2(m_store->lastError().contains(QStringLiteral("non-negative")), qPrintable(m_store->lastError()));
        QVERIFY(!m_store->page({}, {}, 0, -5));
        const std::optional<ExperiencePage> none = m_store->page({}, {}, 0, 0);
        QVERIFY(none);
        QCOMPARE(none->total, 5);
        QVERIFY(none->rows.isEmpty());
        ExperienceStore closed(m_dir.filePath(QStringLiteral("never-opened.sqlite")));
        QVERIFY(!closed.page({}, {}, 0, 10));
        QVERIFY(closed.lastError().contains(QStringLiteral("not open")));
        QCOMPARE(closed.rowOf({}, {}, 1), -1);
    }
};

QTEST_GUILESS_MAIN(TestExperiencePage)
#include "tst_experiencepage.moc"
