#include "exportsession.h"

#include "common/buildinfo.h"
#include "export/kernelexporter.h"
#include "store/sessionstore.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestKernelExporter : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<SessionStore> m_store;
    ExportSession m_session;
    const QDateTime m_when = QDateTime(QDate(2025, 3, 4), QTime(5, 6, 7), Qt::UTC);

    static QString read(const QString &path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QStringLiteral("<unreadable>");
    }

    static bool writeText(const QString &path, const QByteArray &bytes)
    {
        QFile f(path);
        return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
    }

    // The header's "key: value" lines; continuation lines (the lineage's later steps) are appended to the
    // key before them.
    static QMultiMap<QString, QString> headerFields(const QString &text)
    {
        QMultiMap<QString, QString> fields;
        QString key;
        const QStringList lines = text.split(u'\n');
        for (qsizetype i = 1; i < lines.size() && lines.at(i) != KernelExporter::headerEnd; ++i) {
            const QString body = lines.at(i).mid(2); // after "# "
            const QString head = body.left(12).trimmed();
            if (!head.isEmpty())
                key = head.chopped(1); // drop the colon
            fields.insert(key, body.mid(12));
        }
        return fields;
    }

    static QString pythonCompileError(const QString &path)
    {
        QProcess python;
        python.start(QStringLiteral("/usr/bin/python3"),
                     {QStringLiteral("-m"), QStringLiteral("py_compile"), path});
        if (!python.waitForFinished(60000))
            return QStringLiteral("python3 did not finish");
        if (python.exitStatus() != QProcess::NormalExit || python.exitCode() != 0)
            return QString::fromUtf8(python.readAllStandardError());
        return {};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_store = std::make_unique<SessionStore>(m_dir.filePath(QStringLiteral("workspace.sqlite")));
        QVERIFY2(m_store->open(), qPrintable(m_store->lastError()));
        QString error;
        QVERIFY2(m_session.create(*m_store, error), qPrintable(error));
    }

    void exportsTheBestKernelWithItsProvenance()
    {
        KernelExporter exporter(*m_store);
        const auto prepared = exporter.prepare(m_session.sessionId, {}, m_when);
        QVERIFY2(prepared, qPrintable(exporter.lastError()));
        QCOMPARE(prepared->candidate.id, m_session.c2a);
        QCOMPARE(*prepared->speedup, 2.5);

        // A folder that does not exist yet, two levels deep: created, as `--to newdir` promises.
        const QString folder = m_dir.filePath(QStringLiteral("project/kernels"));
        QVERIFY(!QFileInfo::exists(folder));
        const QString path = exporter.write(*prepared, folder);
        QVERIFY2(!path.isEmpty(), qPrintable(exporter.lastError()));
        QCOMPARE(QFileInfo(path).fileName(), QStringLiteral("silu_%1.py").arg(m_session.sessionId.left(8)));

        const QString text = read(path);
        QVERIFY(text.startsWith(KernelExporter::headerBegin + u'\n'));
        const auto fields = headerFields(text);
        QCOMPARE(fields.value(QStringLiteral("task")), QStringLiteral("silu"));
        QCOMPARE(fields.value(QStringLiteral("target")), QStringLiteral("trn1"));
        QCOMPARE(fields.value(QStringLiteral("backend")), QStringLiteral("sim"));
        QCOMPARE(fields.value(QStringLiteral("latency")),
                 QStringLiteral("1.6 ms mean (min 1.55 ms, max 1.7 ms) on local/0"));
        QCOMPARE(fields.value(QStringLiteral("% of peak")), QStringLiteral("25.0%"));
        QCOMPARE(fields.value(QStringLiteral("speedup")),
                 QStringLiteral("2.50x over the session's baseline (4 ms)"));
        QCOMPARE(fields.value(QStringLiteral("candidate")),
                 QStringLiteral("%1 (iteration 2, fixer round 1)").arg(m_session.c2a));
        QCOMPARE(fields.value(QStringLiteral("session")), m_session.sessionId);
        QCOMPARE(fields.value(QStringLiteral("exported")), QStringLiteral("2025-03-04T05:06:07Z"));
        QCOMPARE(fields.value(QStringLiteral("tool")),
                 QStringLiteral("AccelOpt Workbench ") + BuildInfo::appVersion());
        // QMultiMap::values lists the latest insertion first.
        QStringList lineage = fields.values(QStringLiteral("lineage"));
        std::reverse(lineage.begin(), lineage.end());
        QCOMPARE(lineage.size(), 4);
        QCOMPARE(lineage.at(0), QStringLiteral("%1 baseline").arg(m_session.baselineId));
        QCOMPARE(
            lineage.at(1),
            QStringLiteral("%1 iteration 1, executor: %2").arg(m_session.c1a, ExportSession::planTitle0()));
        QCOMPARE(
            lineage.at(2),
            QStringLiteral("%1 iteration 2, executor: Double-buffer DMA | <overlap>").arg(m_session.c2x));
        QCOMPARE(lineage.at(3), QStringLiteral("%1 iteration 2, fixer round 1: Double-buffer DMA | <overlap>")
                                    .arg(m_session.c2a));

        // After the header and one blank line, the kernel exactly as the session produced it.
        const QString marker = KernelExporter::headerEnd + QStringLiteral("\n\n");
        QVERIFY(text.contains(marker));
        QCOMPARE(text.mid(text.indexOf(marker) + marker.size()), m_session.bestSource);
        QCOMPARE(text, prepared->text);
        QCOMPARE(pythonCompileError(path), QString());
    }

    void aKernelThatFailedItsRemeasurementIsNotExportedAsTheBest()
    {
        QTemporaryDir dir;
        SessionStore store(dir.filePath(QStringLiteral("workspace.sqlite")));
        QVERIFY2(store.open(), qPrintable(store.lastError()));
        ExportSession session;
        QString error;
        QVERIFY2(session.create(store, error), qPrintable(error));
        KernelExporter exporter(store);
        const auto field = [&](const QString &candidate) {
            const auto prepared = exporter.prepare(session.sessionId, candidate, m_when);
            return prepared ? headerFields(prepared->text).value(QStringLiteral("remeasured"))
                            : exporter.lastError();
        };
        QCOMPARE(field({}),
                 QStringLiteral("no: the session stopped before it ended; resume it to have its best "
                                "kernel re-measured on fresh seeds"));
        Evaluation remeasured;
        remeasured.status = EvalStatus::Ok;
        remeasured.correct = true;
        remeasured.latencyMeanMs = 0.2;
        QVERIFY(store.addEvaluation(session.c2a, remeasured, SessionStore::remeasureRun));
        QCOMPARE(field({}), QStringLiteral("correct on fresh seeds at the small size"));
        // Wrong on fresh seeds: the export's best is the next kernel, and the demoted one says so when asked
        // for.
        remeasured.status = EvalStatus::Incorrect;
        remeasured.correct = false;
        remeasured.error = QStringLiteral("max |err| 3.1 at [0, 7]\nmore");
        QVERIFY(store.replaceEvaluation(session.c2a, remeasured, SessionStore::remeasureRun));
        QCOMPARE(exporter.prepare(session.sessionId, {}, m_when)->candidate.id, session.c1a);
        QCOMPARE(field(session.c2a),
                 QStringLiteral("FAILED on fresh seeds at the small size (incorrect: max |err| "
                                "3.1 at [0, 7]): not the session's best"));
        QCOMPARE(field(session.baselineId), QStringLiteral("no (the session's starting kernel)"));
    }

    void exportedFileIsValidPythonEvenWithHostileValues()
    {
        // c1d's plan title has a line break; unsanitized it would end the comment and break the file.
        KernelExporter exporter(*m_store);
        const auto prepared = exporter.prepare(m_session.sessionId, m_session.c1d.left(10), m_when);
        QVERIFY2(prepared, qPrintable(exporter.lastError()));
        QCOMPARE(prepared->candidate.id, m_session.c1d);
        QVERIFY(prepared->text.contains(QStringLiteral("fixer round 1: Split into tiles\n")));
        const QString path = exporter.write(*prepared, m_dir.path(), QStringLiteral("chosen.py"));
        QVERIFY2(!path.isEmpty(), qPrintable(exporter.lastError()));
        QCOMPARE(pythonCompileError(path), QString());

        // The check itself can fail: the same file with the title's line break left in does not compile.
        QString broken = prepared->text;
        broken.replace(QStringLiteral("Split into tiles"), ExportSession::planTitle1());
        QVERIFY(writeText(m_dir.filePath(QStringLiteral("broken.py")), broken.toUtf8()));
        QVERIFY(!pythonCompileError(m_dir.filePath(QStringLiteral("broken.py"))).isEmpty());
    }

    void reExportReplacesTheHeaderInsteadOfStacking()
    {
        KernelExporter exporter(*m_store);
        const auto first = exporter.prepare(m_session.sessionId, {}, m_when);
        QVERIFY(first);

        // The user optimizes the exported file again: its text, header included, becomes a new baseline.
        SessionRecord again;
        again.taskName = QStringLiteral("silu");
        again.target = QStringLiteral("trn2");
        again.backend = QStringLiteral("sim");
        QVERIFY(m_store->createSession(again));
        Candidate base;
        base.sessionId = again.id;
        base.origin = Candidate::Origin::Baseline;
        base.source = first->text;
        QVERIFY(m_store->addCandidate(base));
        Evaluation e;
        e.status = EvalStatus::Ok;
        e.correct = true;
        e.latencyMeanMs = 1.5;
        QVERIFY(m_store->addEvaluation(base.id, e));

        const auto second = exporter.prepare(again.id, {}, m_when);
        QVERIFY2(second, qPrintable(exporter.lastError()));
        QCOMPARE(second->text.count(KernelExporter::headerBegin), 1);
        QCOMPARE(second->text.count(KernelExporter::headerEnd), 1);
        QVERIFY(second->text.contains(QStringLiteral("# target:     trn2\n")));
        QVERIFY(!second->text.contains(QStringLiteral("trn1")));
        QVERIFY(second->text.endsWith(QStringLiteral("\n\n") + m_session.bestSource));
        // Without a roofline the % of peak is said to be unknown, not 0 or -1.
        QVERIFY(second->text.contains(QStringLiteral("# % of peak:  unknown")));
    }

    void stripHeaderOnlyTakesOurCompleteHeader()
    {
        const QString source = QStringLiteral("def kernel(x):\n    return x\n");
        QCOMPARE(KernelExporter::stripHeader(source), source);
        const QString ours = KernelExporter::headerBegin + QStringLiteral("\n# task:        a\n") +
                             KernelExporter::headerEnd + QStringLiteral("\n\n");
        QCOMPARE(KernelExporter::stripHeader(ours + source), source);
        // CRLF files edited on Windows still lose the header and keep their own line endings.
        QString crlf = ours + source;
        crlf.replace(u'\n', QStringLiteral("\r\n"));
        QCOMPARE(KernelExporter::stripHeader(crlf), QStringLiteral("def kernel(x):\r\n    return x\r\n"));
        // The begin line without a matching end, or with code before it, is the user's text: left alone.
        const QString unterminated = KernelExporter::headerBegin + QStringLiteral("\n# task: a\n") + source;
        QCOMPARE(KernelExporter::stripHeader(unterminated), unterminated);
        const QString codeInside = KernelExporter::headerBegin + QStringLiteral("\nx = 1\n") +
                                   KernelExporter::headerEnd + QStringLiteral("\n") + source;
        QCOMPARE(KernelExporter::stripHeader(codeInside), codeInside);
        // A shebang stays the first line, before the header.
        const QString shebang = QStringLiteral("#!/usr/bin/env python3\n");
        QCOMPARE(KernelExporter::stripHeader(shebang + ours + source), shebang + source);
    }

    void shebangStaysFirst()
    {
        SessionRecord s;
        s.taskName = QStringLiteral("script");
        QVERIFY(m_store->createSession(s));
        Candidate base;
        base.sessionId = s.id;
        base.origin = Candidate::Origin::Baseline;
        base.source = QStringLiteral("#!/usr/bin/env python3\ndef kernel(x):\n    return x\n");
        QVERIFY(m_store->addCandidate(base));
        Evaluation e;
        e.status = EvalStatus::Ok;
        e.correct = true;
        e.latencyMeanMs = 1;
        QVERIFY(m_store->addEvaluation(base.id, e));
        KernelExporter exporter(*m_store);
        const auto prepared = exporter.prepare(s.id, {}, m_when);
        QVERIFY(prepared);
        QVERIFY(prepared->text.startsWith(QStringLiteral("#!/usr/bin/env python3\n") +
                                          KernelExporter::headerBegin));
        QCOMPARE(KernelExporter::stripHeader(prepared->text), base.source);
        QCOMPARE(*prepared->speedup, 1.0); // the baseline itself
    }

    void neverOverwritesSilently()
    {
        KernelExporter exporter(*m_store);
        const auto prepared = exporter.prepare(m_session.sessionId, {}, m_when);
        QVERIFY(prepared);
        const QString folder = m_dir.filePath(QStringLiteral("overwrite"));
        const QString path = exporter.write(*prepared, folder, QStringLiteral("k.py"));
        QVERIFY(!path.isEmpty());
        QVERIFY(writeText(path, "# the user's own edits\n"));

        QVERIFY(exporter.write(*prepared, folder, QStringLiteral("k.py")).isEmpty());
        QVERIFY2(exporter.lastError().contains(QStringLiteral("already exists")),
                 qPrintable(exporter.lastError()));
        QCOMPARE(read(path), QStringLiteral("# the user's own edits\n"));
        QCOMPARE(QDir(folder).entryList(QDir::Files | QDir::Hidden).size(), 1); // no temporary left behind

        QCOMPARE(exporter.write(*prepared, folder, QStringLiteral("k.py"), true), path);
        QCOMPARE(read(path), prepared->text);
    }

    void clearErrors()
    {
        KernelExporter exporter(*m_store);
        QVERIFY(!exporter.prepare(QStringLiteral("zzzz")));
        QVERIFY2(exporter.lastError().contains(QStringLiteral("no session 'zzzz'")),
                 qPrintable(exporter.lastError()));

        const QString hopeless = ExportSession::createHopeless(*m_store);
        QVERIFY(!hopeless.isEmpty());
        QVERIFY(!exporter.prepare(hopeless));
        QCOMPARE(exporter.lastError(),
                 QStringLiteral("nothing to export: no candidate of session %1 (silu) passed "
                                "correctness yet")
                     .arg(hopeless.left(8)));

        QVERIFY(!exporter.prepare(m_session.sessionId, m_session.c1e));
        QVERIFY2(exporter.lastError().contains(QStringLiteral("has not been evaluated yet")),
                 qPrintable(exporter.lastError()));

        QVERIFY(!exporter.prepare(m_session.sessionId, m_session.c1b));
        QVERIFY2(exporter.lastError().contains(QStringLiteral("did not pass correctness (status incorrect: "
                                                              "mismatch, got \"nan\" at [0, 3])")),
                 qPrintable(exporter.lastError()));

        QVERIFY(!exporter.prepare(hopeless, m_session.c1a));
        QVERIFY2(exporter.lastError().contains(
                     QStringLiteral("belongs to session %1").arg(m_session.sessionId.left(8))),
                 qPrintable(exporter.lastError()));

        QVERIFY(!exporter.prepare(m_session.sessionId, QStringLiteral("nope")));
        QVERIFY2(exporter.lastError().contains(QStringLiteral("no candidate 'nope'")),
                 qPrintable(exporter.lastError()));

        // An empty session id with a candidate id: the candidate's own session.
        const auto byCandidate = exporter.prepare({}, m_session.c1a);
        QVERIFY2(byCandidate, qPrintable(exporter.lastError()));
        QCOMPARE(byCandidate->session.id, m_session.sessionId);
        QCOMPARE(*byCandidate->speedup, 2.0);

        const QString file = m_dir.filePath(QStringLiteral("a-file"));
        QVERIFY(writeText(file, "x"));
        QVERIFY(exporter.write(*byCandidate, file).isEmpty());
        QVERIFY2(exporter.lastError().contains(QStringLiteral("is a file, not a folder")),
                 qPrintable(exporter.lastError()));
    }

    void speedupUnknownWithoutACorrectBaseline()
    {
        SessionRecord s;
        s.taskName = QStringLiteral("silu");
        QVERIFY(m_store->createSession(s));
        Candidate base;
        base.sessionId = s.id;
        base.origin = Candidate::Origin::Baseline;
        base.source = QStringLiteral("def kernel(x):\n    return -x\n");
        QVERIFY(m_store->addCandidate(base));
        Evaluation wrong;
        wrong.status = EvalStatus::Incorrect;
        wrong.correct = false;
        wrong.latencyMeanMs = 3; // timed, but a wrong kernel's time is no baseline
        QVERIFY(m_store->addEvaluation(base.id, wrong));
        Candidate fixed;
        fixed.sessionId = s.id;
        fixed.iteration = 1;
        fixed.parentId = base.id;
        fixed.planIndex = 0;
        fixed.sampleIndex = 0;
        fixed.source = QStringLiteral("def kernel(x):\n    return x\n");
        QVERIFY(m_store->addCandidate(fixed));
        Evaluation right;
        right.status = EvalStatus::Ok;
        right.correct = true;
        right.latencyMeanMs = 2;
        QVERIFY(m_store->addEvaluation(fixed.id, right));
        KernelExporter exporter(*m_store);
        const auto prepared = exporter.prepare(s.id, {}, m_when);
        QVERIFY(prepared);
        QVERIFY(!prepared->speedup);
        QVERIFY(prepared->text.contains(
            QStringLiteral("# speedup:    unknown (the session's baseline has no correct timing)\n")));
    }

    void unwritableFolder()
    {
        const QString folder = m_dir.filePath(QStringLiteral("readonly"));
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(QFile::setPermissions(folder, QFile::ReadOwner | QFile::ExeOwner));
        QFile probe(QDir(folder).filePath(QStringLiteral("probe")));
        if (probe.open(QIODevice::WriteOnly)) {
            probe.close();
            probe.remove();
            QFile::setPermissions(folder, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
            QSKIP("running with privileges that ignore folder permissions");
        }
        KernelExporter exporter(*m_store);
        const auto prepared = exporter.prepare(m_session.sessionId, {}, m_when);
        QVERIFY(prepared);
        QVERIFY(exporter.write(*prepared, folder).isEmpty());
        QVERIFY2(exporter.lastError().contains(QStringLiteral("cannot create")) &&
                     exporter.lastError().contains(QStringLiteral("writable")),
                 qPrintable(exporter.lastError()));
        QFile::setPermissions(folder, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    }

    void failedWriteSaysWhyAndLeavesNothing()
    {
        // A name over the file system's limit fails for every user, root included.
        KernelExporter exporter(*m_store);
        const auto prepared = exporter.prepare(m_session.sessionId, {}, m_when);
        QVERIFY(prepared);
        const QString folder = m_dir.filePath(QStringLiteral("toolong"));
        QVERIFY(exporter.write(*prepared, folder, QString(300, u'k') + QStringLiteral(".py")).isEmpty());
        QVERIFY2(exporter.lastError().contains(QStringLiteral("cannot create")) &&
                     exporter.lastError().contains(QStringLiteral("writable")),
                 qPrintable(exporter.lastError()));
        QCOMPARE(QDir(folder).entryList(QDir::Files | QDir::Hidden), QStringList());
        QVERIFY(
            exporter.write(*prepared, folder, QString(300, u'k') + QStringLiteral(".py"), true).isEmpty());
        QVERIFY2(exporter.lastError().contains(QStringLiteral("cannot write")),
                 qPrintable(exporter.lastError()));
        QCOMPARE(QDir(folder).entryList(QDir::Files | QDir::Hidden), QStringList());
    }

    void defaultFileNames()
    {
        SessionRecord s;
        s.id = QStringLiteral("0123abcd-0000-0000-0000-000000000000");
        s.taskName = QStringLiteral("2mm-Fast/../x");
        QCOMPARE(KernelExporter::defaultFileName(s), QStringLiteral("kernel_2mm_fast____x_0123abcd.py"));
        s.taskName.clear();
        QCOMPARE(KernelExporter::defaultFileName(s), QStringLiteral("kernel_0123abcd.py"));
        s.taskName = QStringLiteral("rmsnorm_matmul");
        QCOMPARE(KernelExporter::defaultFileName(s), QStringLiteral("rmsnorm_matmul_0123abcd.py"));
    }
};

QTEST_GUILESS_MAIN(TestKernelExporter)
#include "tst_kernelexporter.moc"
