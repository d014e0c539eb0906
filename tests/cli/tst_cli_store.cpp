#include "memory/experiencestore.h"
#include "store/sessionstore.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestCliStore : public QObject
{
    Q_OBJECT

    struct Run
    {
        int exitCode;
        QString out;
        QString err;
    };
    static Run run(const QStringList &args)
    {
        QProcess process;
        process.start(QStringLiteral(ACCELOPT_CLI_PATH), args);
        if (!process.waitForFinished(60000))
            return {-1, {}, QStringLiteral("timed out")};
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2,
                QString::fromUtf8(process.readAllStandardOutput()),
                QString::fromUtf8(process.readAllStandardError())};
    }

    QTemporaryDir m_dir;
    QString m_memory;

    Run memory(QStringList args)
    {
        args.prepend(QStringLiteral("memory"));
        args << QStringLiteral("--memory") << m_memory;
        return run(args);
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_memory = m_dir.filePath(QStringLiteral("memory.sqlite"));
        QFile doc(m_dir.filePath(QStringLiteral("seed.json")));
        QVERIFY(doc.open(QIODevice::WriteOnly));
        doc.write(R"({"format": "accelopt-memory", "version": 1, "experiences": [
            {"task": "silu", "target": "trn1", "title": "Use affine_range", "lesson": "Independent iterations overlap.", "speedup": 1.4},
            {"task": "silu", "title": "Tiny tiles hurt", "lesson": "DMA overhead dominates small tiles.", "speedup": 0.6},
            {"task": "gemm", "title": "Stationary weights", "lesson": "Keep the stationary operand in SBUF.", "speedup": 2.1}]})");
    }

    void memoryImportListSearchShow()
    {
        Run r = memory({QStringLiteral("import"), m_dir.filePath(QStringLiteral("seed.json"))});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(QStringLiteral("imported 3")));
        r = memory({QStringLiteral("import"), m_dir.filePath(QStringLiteral("seed.json"))});
        QVERIFY(r.out.contains(QStringLiteral("imported 0 experiences, skipped 3")));

        r = memory({QStringLiteral("list"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonArray all = QJsonDocument::fromJson(r.out.toUtf8()).array();
        QCOMPARE(all.size(), 3);

        r = memory(
            {QStringLiteral("search"), QStringLiteral("\"small\" AND NEAR("), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonArray hits = QJsonDocument::fromJson(r.out.toUtf8()).array();
        QCOMPARE(hits.size(), 0); // "near" does not occur: a plain word, not an operator
        r = memory({QStringLiteral("search"), QStringLiteral("small"), QStringLiteral("--json")});
        const QJsonObject hit = QJsonDocument::fromJson(r.out.toUtf8()).array().first().toObject();
        QCOMPARE(hit.value(QStringLiteral("kind")).toString(), QStringLiteral("negative"));
        const QString id = QString::number(hit.value(QStringLiteral("id")).toInteger());

        r = memory({QStringLiteral("show"), id});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QStringLiteral("Tiny tiles hurt")));
        QVERIFY(r.out.contains(QStringLiteral("negative")));
        QCOMPARE(memory({QStringLiteral("show"), QStringLiteral("9999")}).exitCode, 1);
        QCOMPARE(memory({QStringLiteral("show"), QStringLiteral("abc")}).exitCode, 2);
    }

    void memoryPinDeleteExport()
    {
        ExperienceStore store(m_memory);
        QVERIFY(store.open());
        const qint64 gemm = store.list(QStringLiteral("gemm")).first().id;
        const qint64 silu = store.list(QStringLiteral("silu")).last().id;
        QCOMPARE(memory({QStringLiteral("pin"), QString::number(silu)}).exitCode, 0);
        QVERIFY(store.get(silu)->pinned);
        QCOMPARE(memory({QStringLiteral("delete"), QString::number(gemm)}).exitCode, 0);
        QVERIFY(!store.get(gemm));
        QCOMPARE(memory({QStringLiteral("delete"), QString::number(gemm)}).exitCode, 1);

        const QString out = m_dir.filePath(QStringLiteral("export.json"));
        Run r = memory({QStringLiteral("export"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(f.readAll())
                     .object()
                     .value(QStringLiteral("experiences"))
                     .toArray()
                     .size(),
                 2);
        r = memory({QStringLiteral("export")});
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("format")).toString(),
                 QStringLiteral("accelopt-memory"));
    }

    void memoryImportReportsRejectedEntries()
    {
        QFile doc(m_dir.filePath(QStringLiteral("oversized.json")));
        QVERIFY(doc.open(QIODevice::WriteOnly));
        doc.write(R"({"format": "accelopt-memory", "version": 1, "experiences": [
            {"task": "silu", "title": "Fine", "lesson": "Short and useful.", "speedup": 1.2},
            {"task": "silu", "title": "Bloated", "lesson": ")" +
                  QByteArray(17 * 1024, 'x') + R"(", "speedup": 1.3}]})");
        doc.close();
        const Run r = run({QStringLiteral("memory"), QStringLiteral("import"), doc.fileName(),
                           QStringLiteral("--memory"), m_dir.filePath(QStringLiteral("capped.sqlite"))});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("imported 1 experiences, skipped 0 already in the memory, "
                                               "rejected 1 over a size limit")),
                 qPrintable(r.out));
        QVERIFY2(r.err.contains(QStringLiteral("entry 2 (\"Bloated\")")) &&
                     r.err.contains(QStringLiteral("'lesson'")),
                 qPrintable(r.err));
    }

    void memoryTextPrintsAsTextNotCommands()
    {
        // A lesson is a model's text (or an imported file's): an escape sequence in it must not clear the screen
        // or set the terminal's title when a user lists the memory, and a bidi override must not hide code.
        const QString hostile = m_dir.filePath(QStringLiteral("hostile.sqlite"));
        QFile doc(m_dir.filePath(QStringLiteral("hostile.json")));
        QVERIFY(doc.open(QIODevice::WriteOnly));
        // (built as JSON here: a raw string holding these escapes makes moc skip the file)
        const QJsonObject hostileEntry{
            {QStringLiteral("task"), QStringLiteral("silu\x1b]0;pwned\x07")},
            {QStringLiteral("title"), QStringLiteral("Clear\x1b[2J the screen") + QChar(0x9b) + QStringLiteral("31m")},
            {QStringLiteral("lesson"), QStringLiteral("line one\nline two\x1b[8m hidden ") + QChar(0x202e)},
            {QStringLiteral("snippet_after"), QStringLiteral("x = 1\x07\n")},
            {QStringLiteral("speedup"), 1.4}};
        doc.write(QJsonDocument(QJsonObject{{QStringLiteral("format"), QStringLiteral("accelopt-memory")},
                                            {QStringLiteral("version"), 1},
                                            {QStringLiteral("experiences"), QJsonArray{hostileEntry}}})
                      .toJson());
        doc.close();
        Run r = run({QStringLiteral("memory"), QStringLiteral("import"), doc.fileName(), QStringLiteral("--memory"),
                     hostile});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const auto raw = [](const QString &text) {
            for (const QChar c : text)
                if ((c.unicode() < 0x20 && c != u'\n' && c != u'\t') || (c.unicode() >= 0x7f && c.unicode() < 0xa0) ||
                    c.unicode() == 0x202e)
                    return true;
            return false;
        };
        r = run({QStringLiteral("memory"), QStringLiteral("list"), QStringLiteral("--memory"), hostile});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(!raw(r.out), qPrintable(r.out.toUtf8().toHex()));
        QVERIFY2(r.out.contains(QStringLiteral("Clear\\x1b[2J the screen\\x9b31m")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("silu\\x1b]0;pwned\\x07")), qPrintable(r.out));
        const QString id = r.out.trimmed().section(u' ', 0, 0, QString::SectionSkipEmpty);
        r = run({QStringLiteral("memory"), QStringLiteral("show"), id, QStringLiteral("--memory"), hostile});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(!raw(r.out), qPrintable(r.out.toUtf8().toHex()));
        QVERIFY2(r.out.contains(QStringLiteral("line one\nline two\\x1b[8m hidden \\u202e")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("x = 1\\x07")), qPrintable(r.out));
        // --json carries the text as it is, escaped by JSON itself
        r = run({QStringLiteral("memory"), QStringLiteral("show"), id, QStringLiteral("--json"),
                 QStringLiteral("--memory"), hostile});
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("title")).toString(),
                 QStringLiteral("Clear\x1b[2J the screen") + QChar(0x9b) + QStringLiteral("31m"));
    }

    void memoryBadInputFailsClearly()
    {
        QFile bad(m_dir.filePath(QStringLiteral("bad.json")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write(
            R"({"format": "accelopt-memory", "version": 1, "experiences": [{"task": "x", "title": "", "lesson": "y", "speedup": 1}]})");
        bad.close();
        Run r = memory({QStringLiteral("import"), bad.fileName()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("entry 1")) && r.err.contains(QStringLiteral("title")),
                 qPrintable(r.err));

        const QString text = m_dir.filePath(QStringLiteral("text.sqlite"));
        QFile t(text);
        QVERIFY(t.open(QIODevice::WriteOnly));
        t.write(QByteArray("not a database\n").repeated(20));
        t.close();
        r = run({QStringLiteral("memory"), QStringLiteral("list"), QStringLiteral("--memory"), text});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("left untouched")), qPrintable(r.err));
        QCOMPARE(run({QStringLiteral("memory"), QStringLiteral("frobnicate")}).exitCode, 2);
    }

    void sessionsListAndShow()
    {
        const QString db = m_dir.filePath(QStringLiteral("workspace.sqlite"));
        Run r = run({QStringLiteral("sessions"), QStringLiteral("list"), QStringLiteral("--db"), db});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QStringLiteral("no sessions yet")));
        QVERIFY(!QFile::exists(db)); // listing creates nothing

        QString sessionId;
        {
            SessionStore store(db);
            QVERIFY(store.open());
            SessionRecord s;
            s.taskName = QStringLiteral("silu");
            s.target = QStringLiteral("trn1");
            s.backend = QStringLiteral("sim");
            QVERIFY(store.createSession(s));
            sessionId = s.id;
            Candidate base;
            base.sessionId = s.id;
            base.origin = Candidate::Origin::Baseline;
            base.source = QStringLiteral("base");
            QVERIFY(store.addCandidate(base));
            Evaluation e;
            e.status = EvalStatus::Ok;
            e.correct = true;
            e.latencyMeanMs = 4.0;
            e.percentOfPeak = 25.0; // the runner reports percent, 0-100
            QVERIFY(store.addEvaluation(base.id, e));
            Candidate child;
            child.sessionId = s.id;
            child.iteration = 1;
            child.parentId = base.id;
            child.planIndex = 0;
            child.sampleIndex = 0;
            child.source = QStringLiteral("child");
            QVERIFY(store.addCandidate(child));
            LlmCallRecord call;
            call.role = QStringLiteral("planner");
            call.costUsd = 0.25;
            call.usage = TokenUsage{1000, 200};
            QVERIFY(store.recordLlmCall(s.id, call));
        }
        r = run({QStringLiteral("sessions"), QStringLiteral("list"), QStringLiteral("--db"), db,
                 QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8())
                     .array()
                     .first()
                     .toObject()
                     .value(QStringLiteral("id"))
                     .toString(),
                 sessionId);

        r = run({QStringLiteral("sessions"), QStringLiteral("show"), sessionId.left(6),
                 QStringLiteral("--db"), db});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(QStringLiteral("silu")));
        QVERIFY(r.out.contains(QStringLiteral("25.0")));
        QVERIFY(!r.out.contains(QStringLiteral("2500.0"))); // percent is 0-100 already, never scaled again
        QVERIFY(r.out.contains(QStringLiteral("pending=1")));
        QVERIFY(r.out.contains(QStringLiteral("$0.2500")));

        r = run({QStringLiteral("sessions"), QStringLiteral("show"), sessionId, QStringLiteral("--db"), db,
                 QStringLiteral("--json")});
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("iterations"))
                     .toArray()
                     .first()
                     .toObject()
                     .value(QStringLiteral("best_latency_ms"))
                     .toDouble(),
                 4.0);
        QCOMPARE(
            o.value(QStringLiteral("candidates_by_status")).toObject().value(QStringLiteral("ok")).toInt(),
            1);
        QCOMPARE(o.value(QStringLiteral("cost")).toObject().value(QStringLiteral("prompt_tokens")).toInt(),
                 1000);

        r = run({QStringLiteral("sessions"), QStringLiteral("show"), QStringLiteral("nope"),
                 QStringLiteral("--db"), db});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains(QStringLiteral("no session 'nope'")));
    }

    // accelopt calibration (issue 34): a workspace holding two kernels timed on nkisim in one session and
    // measured on a hardware host in another; the figures are computed by hand.
    void calibrationTableAndJson()
    {
        const QString path = m_dir.filePath(QStringLiteral("calibration.sqlite"));
        {
            SessionStore store(path);
            QVERIFY2(store.open(), qPrintable(store.lastError()));
            for (const bool hardware : {false, true}) {
                SessionRecord s;
                s.taskName = QStringLiteral("add");
                s.target = QStringLiteral("trn2");
                s.backend = hardware ? QStringLiteral("neuron") : QStringLiteral("sim");
                QVERIFY(store.createSession(s));
                Candidate base;
                base.sessionId = s.id;
                base.origin = Candidate::Origin::Baseline;
                base.source = QStringLiteral("def kernel(a):\n    return a\n");
                QVERIFY(store.addCandidate(base));
                Candidate child;
                child.sessionId = s.id;
                child.iteration = 1;
                child.parentId = base.id;
                child.planIndex = 0;
                child.sampleIndex = 0;
                child.source = QStringLiteral("def kernel(a):\n    return a * 1\n");
                QVERIFY(store.addCandidate(child));
                // nkisim: 0.010 and 0.040 ms; device: 0.020 and 0.050 ms
                const double baseMs = hardware ? 0.020 : 0.010, childMs = hardware ? 0.050 : 0.040;
                for (const auto &[id, ms] : {std::pair{base.id, baseMs}, std::pair{child.id, childMs}}) {
                    Evaluation e;
                    e.status = EvalStatus::Ok;
                    e.correct = true;
                    e.latencyMeanMs = ms;
                    e.bound = QStringLiteral("memory");
                    e.backend = s.backend;
                    e.host = hardware ? QStringLiteral("trn-x#0") : QStringLiteral("local#0");
                    e.sdk = hardware ? QStringLiteral("Neuron SDK 2.33") : QStringLiteral("nkisim");
                    QVERIFY(store.addEvaluation(id, e));
                }
            }
        }
        Run r = run({QStringLiteral("calibration"), QStringLiteral("--db"), path, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        const QJsonArray pairs = o.value(QStringLiteral("pairs")).toArray();
        QCOMPARE(pairs.size(), 2);
        // errors: (0.010 - 0.020) / 0.020 = -0.5 and (0.040 - 0.050) / 0.050 = -0.2
        QCOMPARE(pairs.at(0).toObject().value(QStringLiteral("error")).toDouble(), -0.5);
        QVERIFY(qFuzzyCompare(pairs.at(1).toObject().value(QStringLiteral("error")).toDouble(), -0.2));
        const QJsonObject group = o.value(QStringLiteral("groups")).toArray().at(0).toObject();
        QCOMPARE(group.value(QStringLiteral("kernel_class")).toString(), QStringLiteral("memory"));
        QCOMPARE(group.value(QStringLiteral("target")).toString(), QStringLiteral("trn2"));
        QVERIFY(qFuzzyCompare(group.value(QStringLiteral("median_abs_error")).toDouble(), 0.35));
        QCOMPARE(group.value(QStringLiteral("worst_abs_error")).toDouble(), 0.5);
        // ratios 2.0 and 1.25: a ranking margin of 2.0 / 1.25 - 1 = 60 %
        QVERIFY(qFuzzyCompare(group.value(QStringLiteral("ranking_margin")).toDouble(), 0.6));

        r = run({QStringLiteral("calibration"), QStringLiteral("--db"), path});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("-50.0 %")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("35.0 %")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("60.0 %")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("trn-x")), qPrintable(r.out));

        // another host measured nothing: said so, not an error
        r = run({QStringLiteral("calibration"), QStringLiteral("--db"), path, QStringLiteral("--host"),
                 QStringLiteral("trn-y")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(
            r.out.contains(QStringLiteral("no kernel measured on both nkisim and a hardware host (trn-y)")),
            qPrintable(r.out));
        // no workspace yet: none is created
        const QString none = m_dir.filePath(QStringLiteral("none.sqlite"));
        r = run({QStringLiteral("calibration"), QStringLiteral("--db"), none, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(!QFile::exists(none));
        r = run({QStringLiteral("calibration"), QStringLiteral("extra")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("unexpected argument 'extra'")), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliStore)
#include "tst_cli_store.moc"
