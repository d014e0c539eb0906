#include "memory/experiencejson.h"
#include "memory/experiencestore.h"
#include "memory/ftsquery.h"
#include "memory/retrievalcandidates.h"
#include "memory/retrievalpolicy.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

class TestExperienceStore : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<ExperienceStore> m_store;

    ExperienceRecord make(const QString &task, const QString &title, double speedup,
                          const QString &lesson = {})
    {
        ExperienceRecord r;
        r.task = task;
        r.target = QStringLiteral("trn1");
        r.experience.title = title;
        r.experience.lesson = lesson.isEmpty() ? QStringLiteral("Lesson about %1.").arg(title) : lesson;
        r.experience.speedup = speedup;
        r.experience.snippetBefore = QStringLiteral("for i in nl.sequential_range(8):");
        r.experience.snippetAfter = QStringLiteral("for i in nl.affine_range(8):");
        return r;
    }

    qint64 add(ExperienceRecord r)
    {
        if (!m_store->add(r))
            qWarning() << m_store->lastError();
        return r.id;
    }

    int ftsRows()
    {
        QSqlQuery q(m_store->database().connection());
        q.exec(QStringLiteral("SELECT count(*) FROM experiences_fts"));
        q.next();
        return q.value(0).toInt();
    }

    static QStringList titles(const QList<ExperienceRecord> &records)
    {
        QStringList t;
        for (const ExperienceRecord &r : records)
            t.append(r.experience.title);
        return t;
    }

private Q_SLOTS:
    // retrieve() reads only candidates (RetrievalCandidates); it must choose exactly what RetrievalPolicy
    // chooses from every experience, here on a memory small enough that every query word is used.
    // A memory of `count` experiences over three tasks; every one mentions some of the query's words.
    static void fillForRetrieval(ExperienceStore &store, int count)
    {
        const QStringList tasks{QStringLiteral("silu"), QStringLiteral("matmul"), QStringLiteral("lora")};
        const QStringList words{QStringLiteral("psum"), QStringLiteral("transpose"), QStringLiteral("tile"),
                                QStringLiteral("dma"), QStringLiteral("affine")};
        QList<ExperienceRecord> records;
        for (int i = 0; i < count; ++i) {
            ExperienceRecord r;
            r.task = tasks.at(i % 3);
            r.target = i % 4 == 0 ? QStringLiteral("trn1") : QStringLiteral("trn2");
            r.experience.title = QStringLiteral("change %1 %2").arg(i).arg(words.at(i % 5));
            r.experience.lesson =
                QStringLiteral("lesson about %1 and %2").arg(words.at((i / 5) % 5), words.at(i % 2));
            r.experience.speedup = i % 6 == 0 ? 0.5 + (i % 7) / 20.0 : 1.1 + (i % 11) / 4.0;
            r.pinned = i % 37 == 0;
            r.created = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC).addSecs(i * (i % 3 == 0 ? 1 : 7));
            records.append(r);
        }
        const auto result =
            store.importJson(QJsonDocument(ExperienceJson::document(records)).toJson(QJsonDocument::Compact));
        QVERIFY2(result.ok && result.added == count, qPrintable(result.error));
    }

    // Retrieval must choose what RetrievalPolicy chooses from every experience, where the text matches are
    // the newest RetrievalCandidates::scoredMatches of those the query's words match.
    // `changed` counts the calls whose choice the bound changed.
    static void checkRetrievalAgainstThePolicy(ExperienceStore &store, int expectedMatches, int &changed)
    {
        changed = 0;
        const QString query = QStringLiteral("for t in nl.affine_range(4): psum = transpose(tile)");
        QHash<qint64, double> scores;
        QSqlQuery q(store.database().connection());
        QVERIFY(q.prepare(QStringLiteral("SELECT rowid, bm25(experiences_fts, 4.0, 2.0, 1.0, 1.0, 1.0) "
                                         "FROM experiences_fts WHERE experiences_fts MATCH :m")));
        q.bindValue(QStringLiteral(":m"), FtsQuery::anyWord(query));
        QVERIFY(q.exec());
        while (q.next())
            scores.insert(q.value(0).toLongLong(), q.value(1).toDouble());
        QCOMPARE(scores.size(), expectedMatches);
        const QHash<qint64, double> unbounded = scores;
        QList<qint64> matched = scores.keys();
        std::sort(matched.begin(), matched.end(), std::greater<>());
        for (qint64 older : matched.mid(RetrievalCandidates::scoredMatches))
            scores.remove(older);
        for (const QString &task : {QStringLiteral("silu"), QStringLiteral("unseen")})
            for (int limit : {1, 4, 16, 200}) {
                QList<RetrievalPolicy::Entry> all;
                for (const ExperienceRecord &r : store.list()) {
                    RetrievalPolicy::Entry e;
                    e.id = r.id;
                    e.sameTask = r.task == task;
                    e.pinned = r.pinned;
                    e.textMatch = scores.contains(r.id);
                    e.bm25 = scores.value(r.id);
                    e.sameTarget = r.target == QStringLiteral("trn2");
                    e.negative = r.isNegative();
                    e.speedup = r.experience.speedup;
                    e.updated = r.updated;
                    all.append(e);
                }
                QList<qint64> got;
                for (const ExperienceRecord &r : store.retrieve(task, QStringLiteral("trn2"), query, limit))
                    got.append(r.id);
                QCOMPARE(got, RetrievalPolicy::choose(all, limit));
                for (RetrievalPolicy::Entry &e : all) {
                    e.textMatch = unbounded.contains(e.id);
                    e.bm25 = unbounded.value(e.id);
                }
                changed += RetrievalPolicy::choose(all, limit) != got;
            }
    }

    void retrieveChoosesAsThePolicyDoesOverTheWholeMemory()
    {
        QTemporaryDir dir;
        ExperienceStore store(dir.filePath(QStringLiteral("m.sqlite")));
        QVERIFY(store.open());
        fillForRetrieval(store, 180);
        int changed = 0;
        checkRetrievalAgainstThePolicy(store, 180, changed);
        QCOMPARE(changed, 0);
    }

    void retrieveRanksOnlyTheNewestMatchesByText()
    {
        // More matches than retrieval ranks by text: the older ones compete as if their words did not match.
        QTemporaryDir dir;
        ExperienceStore store(dir.filePath(QStringLiteral("m.sqlite")));
        QVERIFY(store.open());
        const int count = RetrievalCandidates::scoredMatches + 300;
        fillForRetrieval(store, count);
        int changed = 0;
        checkRetrievalAgainstThePolicy(store, count, changed);
        if (QTest::currentTestFailed())
            return;
        QVERIFY2(changed > 0, "the memory is too small to show the bound");
    }

    void init()
    {
        m_store = std::make_unique<ExperienceStore>(
            m_dir.filePath(QStringLiteral("memory-%1.sqlite").arg(QTest::currentTestFunction())));
        QVERIFY2(m_store->open(), qPrintable(m_store->lastError()));
    }
    void cleanup() { m_store.reset(); }

    void defaultPathFollowsTheEnvironment()
    {
        qputenv("ACCELOPT_MEMORY_DB", "/tmp/x/memory.sqlite");
        QCOMPARE(ExperienceStore::defaultPath(), QStringLiteral("/tmp/x/memory.sqlite"));
        qunsetenv("ACCELOPT_MEMORY_DB");
        QVERIFY(ExperienceStore::defaultPath().endsWith(QStringLiteral("/memory.sqlite")));
    }

    void positiveAndNegativeAreStoredAsSuch()
    {
        const qint64 pos = add(make(QStringLiteral("silu"), QStringLiteral("Use affine_range"), 1.3));
        const qint64 neg = add(make(QStringLiteral("silu"), QStringLiteral("Tiny tiles"), 0.7));
        QVERIFY(pos > 0 && neg > 0);
        QCOMPARE(m_store->get(neg)->experience.speedup, 0.7);
        QVERIFY(m_store->get(neg)->isNegative());
        QSqlQuery q(m_store->database().connection());
        QVERIFY(q.exec(QStringLiteral("SELECT kind FROM experiences ORDER BY id")));
        QVERIFY(q.next());
        QCOMPARE(q.value(0).toString(), QStringLiteral("positive"));
        QVERIFY(q.next());
        QCOMPARE(q.value(0).toString(), QStringLiteral("negative"));
        ExperienceRecord bad = make(QStringLiteral("silu"), QString(), 1.2);
        QVERIFY(!m_store->add(bad));
    }

    void containsFollowsTheDuplicateRule()
    {
        ExperienceRecord r = make(QStringLiteral("silu"), QStringLiteral("Fuse the activation"), 1.4);
        r.slowHash = QStringLiteral("aaa");
        r.fastHash = QStringLiteral("bbb");
        QVERIFY(!m_store->contains(r));
        QVERIFY(m_store->add(r));
        QVERIFY(m_store->contains(r));
        ExperienceRecord samePair = make(QStringLiteral("silu"), QStringLiteral("Other words"), 1.4);
        samePair.slowHash = r.slowHash;
        samePair.fastHash = r.fastHash;
        QVERIFY(m_store->contains(samePair)); // the same two kernels
        ExperienceRecord sameText = make(QStringLiteral("silu"), QStringLiteral("Fuse the activation"), 1.1);
        QVERIFY(m_store->contains(sameText)); // the same title and lesson
        ExperienceRecord otherTask = make(QStringLiteral("gemm"), QStringLiteral("Fuse the activation"), 1.4);
        QVERIFY(!m_store->contains(otherTask));
    }

    void retrievalOrdersSameTaskAndPinnedFirst()
    {
        add(make(QStringLiteral("gemm"), QStringLiteral("Other task, relevant"), 2.0,
                 QStringLiteral("psum accumulation tiles")));
        add(make(QStringLiteral("silu"), QStringLiteral("Same task plain"), 1.1));
        const qint64 pinned = add(make(QStringLiteral("silu"), QStringLiteral("Same task pinned"), 1.05));
        add(make(QStringLiteral("silu"), QStringLiteral("Same task relevant"), 1.2,
                 QStringLiteral("psum accumulation")));
        add(make(QStringLiteral("silu"), QStringLiteral("Same task warning"), 0.5));
        QVERIFY(m_store->setPinned(pinned, true));
        const QList<ExperienceRecord> got = m_store->retrieve(QStringLiteral("silu"), QStringLiteral("trn1"),
                                                              QStringLiteral("the psum accumulation"), 16);
        QCOMPARE(titles(got),
                 (QStringList{QStringLiteral("Same task pinned"), QStringLiteral("Same task relevant"),
                              QStringLiteral("Same task warning"), QStringLiteral("Same task plain"),
                              QStringLiteral("Other task, relevant")}));
        // With little room the mix keeps one warning and the best positives.
        const QList<ExperienceRecord> few =
            m_store->retrieve(QStringLiteral("silu"), {}, QStringLiteral("psum"), 3);
        QCOMPARE(titles(few),
                 (QStringList{QStringLiteral("Same task pinned"), QStringLiteral("Same task relevant"),
                              QStringLiteral("Same task warning")}));
    }

    void mixRuleCapsNegativesUnlessShort()
    {
        QList<RetrievalPolicy::Entry> entries;
        for (int i = 0; i < 8; ++i) {
            RetrievalPolicy::Entry e;
            e.id = i;
            e.sameTask = true;
            e.negative = i < 6; // six negatives rank first (bigger effect), two positives
            e.speedup = e.negative ? 0.1 : 1.1;
            entries.append(e);
        }
        QCOMPARE(RetrievalPolicy::negativeQuota(4), 1);
        QCOMPARE(RetrievalPolicy::choose(entries, 4), (QList<qint64>{0, 1, 6, 7}));
        // Only negatives left: they fill every slot.
        QCOMPARE(RetrievalPolicy::choose(entries.mid(0, 6), 4).size(), 4);
        QCOMPARE(RetrievalPolicy::choose(entries, 0).size(), 0);
    }

    void hostileSearchTextIsSafe()
    {
        add(make(QStringLiteral("silu"), QStringLiteral("Fuse the \"activation\" into the load"), 1.5,
                 QStringLiteral("Apply nl.exp AND the sigmoid in one pass; naïve café code.")));
        add(make(QStringLiteral("gemm"), QStringLiteral("Matmul tiling"), 1.8,
                 QStringLiteral("Use 128x512 tiles.")));
        const QStringList hostile{QStringLiteral("\""),
                                  QStringLiteral("\"activation"),
                                  QStringLiteral("AND"),
                                  QStringLiteral("OR OR"),
                                  QStringLiteral("NEAR(a b)"),
                                  QStringLiteral("*"),
                                  QStringLiteral("mat*"),
                                  QStringLiteral("title:fuse"),
                                  QStringLiteral("-sigmoid"),
                                  QStringLiteral("(((("),
                                  QStringLiteral("'; DROP TABLE experiences; --"),
                                  QStringLiteral("naive"),
                                  QStringLiteral("café ✓ 矩阵"),
                                  QStringLiteral("^ NOT +")};
        for (const QString &text : hostile) {
            m_store->search(text);
            QVERIFY2(!m_store->lastError().contains(QStringLiteral("syntax")),
                     qPrintable(text + u' ' + m_store->lastError()));
            QVERIFY2(m_store->lastError().isEmpty(), qPrintable(text + u' ' + m_store->lastError()));
        }
        QCOMPARE(titles(m_store->search(QStringLiteral("mat*"))),
                 QStringList{QStringLiteral("Matmul tiling")});
        QCOMPARE(m_store->search(QStringLiteral("\"activation")).size(), 1);
        QCOMPARE(m_store->search(QStringLiteral("AND sigmoid")).size(),
                 1);                                                  // AND is a word here, and it occurs
        QCOMPARE(m_store->search(QStringLiteral("naive")).size(), 1); // diacritics folded
        QCOMPARE(m_store->search(QStringLiteral("'; DROP TABLE experiences; --")).size(), 0);
        QCOMPARE(m_store->count(), 2);
        QCOMPARE(m_store->search(QStringLiteral("\"")).size(), 2); // nothing searchable: everything
        QCOMPARE(FtsQuery::allWords(QStringLiteral("a\"b c*")), QStringLiteral("\"a\"\"b\" \"c\"*"));
        QVERIFY(m_store->retrieve(QStringLiteral("silu"), {}, QStringLiteral("NEAR(\"x\" * OR) title:"), 4)
                    .size() == 2);
    }

    void editPinDeleteKeepTheIndexInSync()
    {
        const qint64 id = add(make(QStringLiteral("silu"), QStringLiteral("Old title"), 1.4));
        add(make(QStringLiteral("silu"), QStringLiteral("Other"), 1.1));
        QCOMPARE(ftsRows(), 2);
        QVERIFY(m_store->edit(id, QStringLiteral("Hoist the transpose"),
                              QStringLiteral("Transpose once outside the loop.")));
        QCOMPARE(m_store->search(QStringLiteral("Old")).size(), 0);
        QCOMPARE(m_store->search(QStringLiteral("hoist")).size(), 1);
        QCOMPARE(m_store->search(QStringLiteral("outside loop")).first().id, id);
        QVERIFY(m_store->setPinned(id, true));
        QCOMPARE(m_store->list().first().id, id);
        QCOMPARE(m_store->search(QStringLiteral("hoist")).size(), 1);
        QVERIFY(m_store->remove(id));
        QCOMPARE(m_store->search(QStringLiteral("hoist")).size(), 0);
        QCOMPARE(ftsRows(), 1);
        QVERIFY(!m_store->remove(id));
        QVERIFY(!m_store->edit(id, QStringLiteral("x"), QStringLiteral("y")));
        QVERIFY(!m_store->setPinned(id, false));
    }

    void exportImportRoundTrip()
    {
        ExperienceRecord a = make(QStringLiteral("silu"), QStringLiteral("A"), 1.5);
        a.slowHash = QStringLiteral("s1");
        a.fastHash = QStringLiteral("f1");
        a.sessionId = QStringLiteral("sess");
        a.measuredOn = QStringLiteral("hardware (Neuron SDK 2.33) on trn"); // issue 34: kept and exported
        a.pinned = true;
        add(a);
        add(make(QStringLiteral("gemm"), QStringLiteral("B ünïcode \"quoted\""), 0.8));
        const QJsonObject exported = m_store->exportJson();

        ExperienceStore fresh(m_dir.filePath(QStringLiteral("fresh.sqlite")));
        QVERIFY(fresh.open());
        const auto result = fresh.importJson(QJsonDocument(exported).toJson());
        QVERIFY2(result.ok, qPrintable(result.error));
        QCOMPARE(result.added, 2);
        QCOMPARE(fresh.exportJson().value(QStringLiteral("experiences")),
                 exported.value(QStringLiteral("experiences")));
        int withProvenance = 0;
        for (const ExperienceRecord &r : fresh.list())
            if (r.experience.title == QStringLiteral("A")) {
                QCOMPARE(r.measuredOn, QStringLiteral("hardware (Neuron SDK 2.33) on trn"));
                ++withProvenance;
            } else {
                QCOMPARE(r.measuredOn, QString());
            }
        QCOMPARE(withProvenance, 1);

        // Importing again, or the same pair under another title, adds nothing.
        QJsonObject again = exported;
        QJsonArray entries = again.value(QStringLiteral("experiences")).toArray();
        QJsonObject renamed = entries.at(0).toObject();
        renamed.insert(QStringLiteral("title"), QStringLiteral("A, renamed"));
        entries.append(renamed);
        again.insert(QStringLiteral("experiences"), entries);
        const auto second = fresh.importJson(QJsonDocument(again).toJson());
        QVERIFY(second.ok);
        QCOMPARE(second.added, 0);
        QCOMPARE(second.duplicates, 3);
        QCOMPARE(fresh.count(), 2);
    }

    void malformedImportNamesTheEntry()
    {
        const QByteArray doc = R"({"format": "accelopt-memory", "version": 1, "experiences": [
            {"task": "silu", "title": "Good", "lesson": "fine", "speedup": 1.2},
            {"task": "silu", "title": "Bad speedup", "lesson": "x", "speedup": "fast"}]})";
        auto r = m_store->importJson(doc);
        QVERIFY(!r.ok);
        QVERIFY2(r.error.contains(QStringLiteral("entry 2 (\"Bad speedup\")")), qPrintable(r.error));
        QVERIFY(r.error.contains(QStringLiteral("speedup")));
        QCOMPARE(m_store->count(), 0); // all or nothing

        r = m_store->importJson(R"({"format": "accelopt-memory", "version": 1, "experiences": [
            {"task": "silu", "title": "Flipped", "lesson": "x", "speedup": 0.5, "kind": "positive"}]})");
        QVERIFY(!r.ok);
        QVERIFY2(r.error.contains(QStringLiteral("entry 1")) && r.error.contains(QStringLiteral("kind")),
                 qPrintable(r.error));
        r = m_store->importJson(R"({"format": "accelopt-memory", "version": 1, "experiences": [42]})");
        QVERIFY(r.error.contains(QStringLiteral("entry 1: it is not an object")));
        r = m_store->importJson(R"({"format": "accelopt-memory", "version": 7, "experiences": []})");
        QVERIFY(r.error.contains(QStringLiteral("newer")));
        r = m_store->importJson("{not json");
        QVERIFY(r.error.contains(QStringLiteral("not valid JSON")));
        r = m_store->importJson(R"({"experiences": []})");
        QVERIFY(r.error.contains(QStringLiteral("not an AccelOpt memory export")));
    }

    void largeImportCountsEveryEntryOnce()
    {
        // Linear time is bench_memory's to show; here: the counts at a size where the old per-row scans hurt.
        const QStringList tasks{QStringLiteral("silu"), QStringLiteral("gemm"), QStringLiteral("swiglu")};
        QList<ExperienceRecord> records;
        for (int i = 0; i < 5000; ++i) {
            ExperienceRecord r = make(tasks.at(i % 3), QStringLiteral("Change %1").arg(i), i % 4 ? 1.2 : 0.8);
            if (i % 2) {
                r.slowHash = QStringLiteral("s%1").arg(i);
                r.fastHash = QStringLiteral("f%1").arg(i);
            }
            records.append(r);
        }
        for (int i = 0; i < 10; ++i) // repeated within the file: same pair, or same title and lesson
            records.append(records.at(i));
        const QByteArray doc = QJsonDocument(ExperienceJson::document(records)).toJson();

        auto first = m_store->importJson(doc);
        QVERIFY2(first.ok, qPrintable(first.error));
        QCOMPARE(first.added, 5000);
        QCOMPARE(first.duplicates, 10);
        QCOMPARE(first.rejected, 0);
        QCOMPARE(m_store->count(), 5000);
        QCOMPARE(ftsRows(), 5000);

        auto second = m_store->importJson(doc);
        QVERIFY2(second.ok, qPrintable(second.error));
        QCOMPARE(second.added, 0);
        QCOMPARE(second.duplicates, 5010);
        QCOMPARE(m_store->count(), 5000);

        QSqlQuery q(m_store->database().connection());
        QVERIFY(q.exec(QStringLiteral("EXPLAIN QUERY PLAN SELECT 1 FROM experiences WHERE task = 'a' AND "
                                      "slow_hash = 'b' AND fast_hash = 'c'")));
        QVERIFY(q.next());
        QVERIFY2(q.value(3).toString().contains(QStringLiteral("experiences_by_pair")),
                 qPrintable(q.value(3).toString()));
    }

    void oversizedEntriesAreRejectedAndTheRestImported()
    {
        QList<ExperienceRecord> records{make(QStringLiteral("silu"), QStringLiteral("Good one"), 1.2)};
        records.append(make(QStringLiteral("silu"), QStringLiteral("Huge lesson"), 1.3,
                            QString(20 * 1024 * 1024, u'x')));
        records.append(make(QStringLiteral("silu"), QString(ExperienceJson::maxTitleChars + 1, u't'), 1.4));
        ExperienceRecord snippet = make(QStringLiteral("gemm"), QStringLiteral("Big snippet"), 1.5);
        snippet.experience.snippetAfter = QString(ExperienceJson::maxSnippetChars + 1, u's');
        records.append(snippet);
        // At the limits exactly: accepted.
        records.append(make(QStringLiteral("gemm"), QString(ExperienceJson::maxTitleChars, u'T'), 1.6,
                            QString(ExperienceJson::maxLessonChars, u'L')));

        const auto r = m_store->importJson(QJsonDocument(ExperienceJson::document(records)).toJson());
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.added, 2);
        QCOMPARE(r.duplicates, 0);
        QCOMPARE(r.rejected, 3);
        QCOMPARE(r.rejections.size(), 3);
        QVERIFY2(r.rejections.at(0).contains(QStringLiteral("entry 2 (\"Huge lesson\")")) &&
                     r.rejections.at(0).contains(QStringLiteral("'lesson'")),
                 qPrintable(r.rejections.at(0)));
        QVERIFY2(r.rejections.at(1).startsWith(QStringLiteral("entry 3 (\"ttt")) &&
                     r.rejections.at(1).contains(QStringLiteral("'title'")),
                 qPrintable(r.rejections.at(1)));
        QVERIFY2(r.rejections.at(2).contains(QStringLiteral("entry 4 (\"Big snippet\")")) &&
                     r.rejections.at(2).contains(QStringLiteral("'snippet_after'")),
                 qPrintable(r.rejections.at(2)));
        QCOMPARE(m_store->count(), 2);
        QCOMPARE(titles(m_store->search(QStringLiteral("good"))), QStringList{QStringLiteral("Good one")});
        QVERIFY(m_store->search(QStringLiteral("huge")).isEmpty());
    }

    void memoryPersistsAcrossOpens()
    {
        add(make(QStringLiteral("silu"), QStringLiteral("Kept"), 1.3));
        const QString path = m_store->path();
        m_store.reset();
        ExperienceStore again(path);
        QVERIFY(again.open());
        QCOMPARE(again.search(QStringLiteral("kept")).size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestExperienceStore)
#include "tst_experiencestore.moc"
