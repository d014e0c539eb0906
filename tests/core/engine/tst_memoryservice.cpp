#include "engine/engine.h"
#include "engine/memoryservice.h"
#include "memory/experiencejson.h"
#include "memory/experiencestore.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

// The engine's desk for the Memory dock (issues 32 and 35), on the test's thread: pages with the selection's row,
// one experience with its evidence, curating steps answered with their job and announced as memory changes,
// and import/export files read and written by the engine, bad ones refused with a reason.
class TestMemoryService : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    Engine::Settings settings(const QString &name) const
    {
        Engine::Settings s;
        s.workspaceDb = m_dir.filePath(name + QStringLiteral("-workspace.sqlite"));
        s.memoryDb = m_dir.filePath(name + QStringLiteral("-memory.sqlite"));
        s.llmConfig = m_dir.filePath(name + QStringLiteral("-llm.json"));
        s.hostsFile = m_dir.filePath(name + QStringLiteral("-hosts.json"));
        return s;
    }
    static ExperienceRecord record(int i)
    {
        ExperienceRecord r;
        r.task = QStringLiteral("silu");
        r.target = QStringLiteral("trn2");
        r.experience.title = QStringLiteral("lesson %1").arg(i);
        r.experience.lesson = QStringLiteral("Say %1 once.").arg(i);
        r.experience.speedup = 1.5;
        r.created = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC).addSecs(i);
        return r;
    }
    static void seed(const QString &path, int count)
    {
        ExperienceStore store(path);
        QVERIFY(store.open());
        for (int i = 0; i < count; ++i) {
            ExperienceRecord r = record(i);
            QVERIFY(store.add(r));
        }
    }

private Q_SLOTS:
    void pagesHoldTheKeptExperience()
    {
        const Engine::Settings s = settings(QStringLiteral("page"));
        seed(s.memoryDb, 300);
        Engine engine(s);
        MemoryService *memory = engine.memory();
        QSignalSpy paged(memory, &MemoryService::paged);
        ExperiencePageRequest request;
        request.limit = 128;
        memory->page(1, request);
        QCOMPARE(paged.size(), 1);
        auto page = paged.last().at(1).value<ExperiencePage>();
        QCOMPARE(page.total, 300);
        QCOMPARE(page.rows.size(), 128);
        QCOMPARE(page.focusRow, -1);
        // The oldest is row 299: the answer is the page holding it, aligned on the page size.
        request.focusId = page.rows.first().id - 299;
        memory->page(2, request);
        page = paged.last().at(1).value<ExperiencePage>();
        QCOMPARE(paged.last().at(0).toULongLong(), quint64(2));
        QCOMPARE(page.focusRow, 299);
        QCOMPARE(page.offset, 256);
        QCOMPARE(page.rows.at(299 - 256).id, request.focusId);
        // Gone: no row, the first page.
        request.focusId = 99999;
        memory->page(3, request);
        QCOMPARE(paged.last().at(1).value<ExperiencePage>().focusRow, -1);
        QCOMPARE(paged.last().at(1).value<ExperiencePage>().offset, 0);
    }

    void curatingIsAnsweredAndAnnounced()
    {
        const Engine::Settings s = settings(QStringLiteral("curate"));
        seed(s.memoryDb, 3);
        Engine engine(s);
        MemoryService *memory = engine.memory();
        QSignalSpy changed(memory, &MemoryService::changed);
        QSignalSpy loaded(memory, &MemoryService::loaded);
        QSignalSpy announced(&engine, &Engine::memoryChanged);
        memory->load(1, 1);
        const auto first = loaded.last().at(1).value<std::optional<ExperienceRecord>>();
        QVERIFY(first);
        memory->setPinned(2, first->id, true);
        QCOMPARE(changed.last().at(0).toULongLong(), quint64(2));
        QVERIFY(changed.last().at(1).toString().isEmpty());
        QCOMPARE(announced.size(), 1);
        memory->edit(3, first->id, QStringLiteral("new title"), QStringLiteral("new lesson"));
        memory->load(4, first->id);
        QCOMPARE(loaded.last().at(1).value<std::optional<ExperienceRecord>>()->experience.title,
                 QStringLiteral("new title"));
        QVERIFY(loaded.last().at(1).value<std::optional<ExperienceRecord>>()->pinned);
        // Over the caps, or empty: refused with the store's reason, nothing announced.
        memory->edit(5, first->id, QStringLiteral("t"), QString(20000, QLatin1Char('x')));
        QVERIFY(changed.last().at(1).toString().contains(QStringLiteral("over the limit")));
        memory->edit(6, first->id, QString(), QStringLiteral("lesson"));
        QVERIFY(!changed.last().at(1).toString().isEmpty());
        QCOMPARE(announced.size(), 2);
        // Delete and restore, id and all.
        const ExperienceRecord kept = *loaded.last().at(1).value<std::optional<ExperienceRecord>>();
        memory->remove(7, kept.id);
        memory->load(8, kept.id);
        QVERIFY(!loaded.last().at(1).value<std::optional<ExperienceRecord>>());
        QVERIFY(loaded.last().at(3).toString().isEmpty()); // gone is not an error
        memory->restore(9, kept, {});
        memory->load(10, kept.id);
        QCOMPARE(loaded.last().at(1).value<std::optional<ExperienceRecord>>()->experience.title,
                 QStringLiteral("new title"));
        memory->remove(11, 424242);
        QVERIFY(changed.last().at(1).toString().contains(QStringLiteral("no experience")));
    }

    void importAndExportFilesAreTheEnginesToReadAndWrite()
    {
        const Engine::Settings s = settings(QStringLiteral("files"));
        seed(s.memoryDb, 2);
        Engine engine(s);
        MemoryService *memory = engine.memory();
        QSignalSpy exported(memory, &MemoryService::exported);
        QSignalSpy imported(memory, &MemoryService::imported);
        const QString file = m_dir.filePath(QStringLiteral("export.json"));
        memory->exportFile(1, file);
        QCOMPARE(exported.last().at(2).toInt(), 2);
        QVERIFY(exported.last().at(3).toString().isEmpty());
        QVERIFY(QFile::exists(file));
        memory->exportFile(2, m_dir.filePath(QStringLiteral("no-such-folder/export.json")));
        QVERIFY(exported.last().at(3).toString().startsWith(QStringLiteral("Cannot write")));

        Engine other(settings(QStringLiteral("files-into")));
        QSignalSpy into(other.memory(), &MemoryService::imported);
        other.memory()->importFile(3, file);
        auto result = into.last().at(2).value<ExperienceStore::ImportResult>();
        QVERIFY(result.ok);
        QCOMPARE(result.added, 2);
        other.memory()->importFile(4, file);
        QCOMPARE(into.last().at(2).value<ExperienceStore::ImportResult>().duplicates, 2);

        // Not there, not JSON, too large: each told, nothing added.
        memory->importFile(5, m_dir.filePath(QStringLiteral("missing.json")));
        QVERIFY(imported.last().at(3).toString().startsWith(QStringLiteral("Cannot read")));
        QFile bad(m_dir.filePath(QStringLiteral("bad.json")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("[1, 2");
        bad.close();
        memory->importFile(6, bad.fileName());
        QVERIFY(imported.last().at(3).toString().isEmpty());
        QVERIFY(!imported.last().at(2).value<ExperienceStore::ImportResult>().ok);
        QFile huge(m_dir.filePath(QStringLiteral("huge.json")));
        QVERIFY(huge.open(QIODevice::WriteOnly));
        QVERIFY(huge.resize(ExperienceJson::maxDocumentBytes + 1));
        huge.close();
        memory->importFile(7, huge.fileName());
        QVERIFY(imported.last().at(3).toString().contains(QStringLiteral("too large")));
        ExperienceStore check(s.memoryDb);
        QVERIFY(check.open());
        QCOMPARE(check.count(), 2);
    }
};

QTEST_GUILESS_MAIN(TestMemoryService)
#include "tst_memoryservice.moc"
