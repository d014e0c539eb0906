#include "common/buildinfo.h"
#include "runnergate.h"

#include <QDir>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

class TestCli : public QObject
{
    Q_OBJECT

    struct Run
    {
        int exitCode;
        QString out;
        QString err;
    };
    static Run run(const QStringList &args, const QMap<QString, QString> &extraEnv = {})
    {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (auto it = extraEnv.begin(); it != extraEnv.end(); ++it)
            env.insert(it.key(), it.value());
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(ACCELOPT_CLI_PATH), args);
        if (!process.waitForFinished(300000))
            return {-1, {}, QStringLiteral("timed out")};
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2,
                QString::fromUtf8(process.readAllStandardOutput()),
                QString::fromUtf8(process.readAllStandardError())};
    }

private Q_SLOTS:
    void versionPrintsToolAndLibraries()
    {
        const Run r = run({QStringLiteral("--version")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith(QStringLiteral("accelopt ") + BuildInfo::appVersion()));
        QVERIFY(r.out.contains(QStringLiteral("Qt 6.")));
        QVERIFY(r.out.contains(QStringLiteral("libssh 0.")));
    }

    void helpDescribesUsage()
    {
        const Run r = run({QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QStringLiteral("Usage:")));
        QVERIFY(r.out.contains(QStringLiteral("--version")));
    }

    void unknownCommandAndOptionFailClearly()
    {
        Run r = run({QStringLiteral("frobnicate")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("unknown command 'frobnicate'")));
        QVERIFY(r.err.contains(QStringLiteral("accelopt --help")));
        r = run({QStringLiteral("--no-such-option")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("no-such-option")));
    }

    void badUsageExitsTwoWithWhatToDo()
    {
        QTemporaryDir dir;
        const QMap<QString, QString> env{
            {QStringLiteral("ACCELOPT_HOSTS_FILE"), dir.filePath(QStringLiteral("hosts.json"))}};
        const QString silu = QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline.py");
        const struct
        {
            QStringList args;
            const char *says;
        } cases[] = {
            {{QStringLiteral("bench"), silu, QStringLiteral("--task"), QStringLiteral("silu"), QStringLiteral("--jobs"),
              QStringLiteral("0")},
             "--jobs must be a whole number from 1 to 64, not '0'"},
            {{QStringLiteral("suite"), QStringLiteral("--jobs"), QStringLiteral("many")}, "--jobs must be"},
            {{QStringLiteral("suite"), QStringLiteral("--tasks"), QString()}, "--tasks names no task"},
            {{QStringLiteral("suite"), QStringLiteral("--tasks"), QStringLiteral(",, ,")}, "--tasks names no task"},
            {{QStringLiteral("hosts"), QStringLiteral("add"), QStringLiteral("x"), QStringLiteral("--ssh"),
              QStringLiteral("h"), QStringLiteral("--port"), QStringLiteral("abc")},
             "--port must be a whole number from 1 to 65535, not 'abc'"},
            {{QStringLiteral("hosts"), QStringLiteral("add"), QStringLiteral("x"), QStringLiteral("--ssh"),
              QStringLiteral("h"), QStringLiteral("--port"), QStringLiteral("70000")},
             "--port must be"},
        };
        for (const auto &c : cases) {
            const Run r = run(c.args, env);
            QVERIFY2(r.exitCode == 2, qPrintable(c.args.join(u' ') + QStringLiteral(" -> ") + r.err));
            QVERIFY2(r.err.contains(QLatin1String(c.says)), qPrintable(r.err));
        }
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("hosts.json")))); // nothing written on bad usage
    }

    void suiteRunsTheCurrentApiBaselinesOnTrn3()
    {
        // Every task's baseline_current.py (the nki namespace), numerically checked, on the newest target.
        Run r = run({QStringLiteral("suite"), QStringLiteral("--api"), QStringLiteral("current"),
                     QStringLiteral("--size"), QStringLiteral("small"), QStringLiteral("--target"),
                     QStringLiteral("trn3"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const QList<QString> lines = r.out.trimmed().split(u'\n');
        QCOMPARE(lines.size(), 14);
        for (const QString &line : lines) {
            const QJsonObject o = QJsonDocument::fromJson(line.toUtf8()).object();
            QCOMPARE(o.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
            QVERIFY(o.value(QStringLiteral("correct")).toBool());
            QVERIFY(o.value(QStringLiteral("percent_of_peak")).toDouble() > 0);
        }
        r = run({QStringLiteral("suite"), QStringLiteral("--api"), QStringLiteral("newest")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--api must be classic or current")), qPrintable(r.err));
        r = run({QStringLiteral("suite"), QStringLiteral("--api"), QStringLiteral("current"), QStringLiteral("--dataset"),
                 QStringLiteral(ACCELOPT_SOURCE_DIR "/tests/fixtures/nkibench_original")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("classic kernels only")), qPrintable(r.err));
        r = run({QStringLiteral("suite"), QStringLiteral("--target"), QStringLiteral("trn4")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("trn1, trn2 or trn3")), qPrintable(r.err));
    }

    void benchPrintsTheResultAsJson()
    {
        const Run r = run({QStringLiteral("bench"),
                           QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline.py"),
                           QStringLiteral("--task"), QStringLiteral("silu"), QStringLiteral("--size"),
                           QStringLiteral("small"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("task")).toString(), QStringLiteral("silu"));
        QCOMPARE(o.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        QCOMPARE(o.value(QStringLiteral("correct")).toBool(), true);
        QVERIFY(o.value(QStringLiteral("latency_ms")).toDouble() > 0);
        QVERIFY(o.value(QStringLiteral("percent_of_peak")).toDouble() > 0);
        QCOMPARE(o.value(QStringLiteral("bound")).toString(), QStringLiteral("memory"));
        QVERIFY(o.value(QStringLiteral("metrics")).toObject().contains(QStringLiteral("hbm_read_bytes")));
        QVERIFY(o.value(QStringLiteral("l2_rel_err")).toDouble() < 2e-5);
        // the runner's diagnostics pass through: seconds per phase and the child's peak memory
        const QJsonObject phases = o.value(QStringLiteral("phase_s")).toObject();
        QVERIFY2(phases.contains(QStringLiteral("reference")) && phases.contains(QStringLiteral("kernel")),
                 qPrintable(r.out));
        QVERIFY(o.value(QStringLiteral("peak_rss_mb")).toDouble() > 0);
        QVERIFY(!o.contains(QStringLiteral("timing_inputs")));
        // Where the time went, per kernel line: the lines of the file, with engine times that add up.
        const QJsonArray lines = o.value(QStringLiteral("line_costs")).toArray();
        QVERIFY2(!lines.isEmpty(), qPrintable(r.out));
        for (const QJsonValue &v : lines) {
            const QJsonObject c = v.toObject();
            QVERIFY(c.value(QStringLiteral("line")).toInt() >= 0 && c.value(QStringLiteral("line")).toInt() <= 24);
            QVERIFY(c.value(QStringLiteral("instructions")).toInt() > 0);
            QVERIFY(c.value(QStringLiteral("ns")).toObject().contains(QStringLiteral("dma")));
        }
    }

    void benchPassesOnWhatTheKernelPrinted()
    {
        // A user debugging a kernel needs its prints: --json carries them as they are, and the table shows them
        // after the rows as text (an escape sequence in them is printed, not obeyed).
        QTemporaryDir dir;
        QFile base(QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline.py"));
        QVERIFY(base.open(QIODevice::ReadOnly));
        QByteArray source = base.readAll();
        source.replace("@nki.jit", "print('tile plan: 4 x 1024\\x1b[2J')\n@nki.jit");
        QFile kernel(dir.filePath(QStringLiteral("printing.py")));
        QVERIFY(kernel.open(QIODevice::WriteOnly));
        kernel.write(source);
        kernel.close();
        const QStringList args{QStringLiteral("bench"), kernel.fileName(), QStringLiteral("--task"),
                               QStringLiteral("silu"), QStringLiteral("--size"), QStringLiteral("small")};
        const Run json = run(args + QStringList{QStringLiteral("--json")});
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        const QString printed =
            QJsonDocument::fromJson(json.out.toUtf8()).object().value(QStringLiteral("output")).toString();
        QVERIFY2(printed.contains(QStringLiteral("tile plan: 4 x 1024\x1b[2J")), qPrintable(json.out));
        const Run text = run(args);
        QVERIFY2(text.exitCode == 0, qPrintable(text.err));
        QVERIFY2(text.out.contains(QStringLiteral("output: silu:\ntile plan: 4 x 1024\\x1b[2J")),
                 qPrintable(text.out));
        QVERIFY(!text.out.contains(QChar(0x1b)));
    }

    void suiteNamesDatasetProblemsAsBenchDoes()
    {
        // `bench --task silu --dataset D` took the problem's name while `suite --dataset D --tasks silu` said
        // "no task 'silu'" (it named problems after their kernel files): one rule for both, the runner's.
        const QString dataset = QStringLiteral(ACCELOPT_SOURCE_DIR "/tests/fixtures/nkibench_original");
        Run r = run({QStringLiteral("suite"), QStringLiteral("--dataset"), dataset, QStringLiteral("--tasks"),
                     QStringLiteral("silu"), QStringLiteral("--size"), QStringLiteral("small"),
                     QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("task")).toString(), QStringLiteral("silu"));
        QVERIFY(o.value(QStringLiteral("correct")).toBool());
        // the file-named case the runner also takes stays accepted
        r = run({QStringLiteral("suite"), QStringLiteral("--dataset"), dataset, QStringLiteral("--tasks"),
                 QStringLiteral("silu_M256_N1024"), QStringLiteral("--timing-only"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("task")).toString(), QStringLiteral("silu_M256_N1024"));
        QCOMPARE(o.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        r = run({QStringLiteral("suite"), QStringLiteral("--dataset"), dataset, QStringLiteral("--tasks"),
                 QStringLiteral("gelu")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("no task 'gelu'; available: mamba, matmul, silu")), qPrintable(r.err));
        // A summary.json that is a FIFO is skipped, said, and never opened (it would block).
        QTemporaryDir dir;
        QVERIFY(QProcess::execute(QStringLiteral("cp"), {QStringLiteral("-r"), dataset + QStringLiteral("/."),
                                                         dir.path()}) == 0);
        QVERIFY(QFile::remove(dir.filePath(QStringLiteral("summary.json"))));
        QVERIFY(QProcess::execute(QStringLiteral("mkfifo"), {dir.filePath(QStringLiteral("summary.json"))}) == 0);
        r = run({QStringLiteral("suite"), QStringLiteral("--dataset"), dir.path(), QStringLiteral("--tasks"),
                 QStringLiteral("silu"), QStringLiteral("--timing-only")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.err.contains(QStringLiteral("warning: ")) && r.err.contains(QStringLiteral("summary.json is not a "
                                                                                             "regular file")),
                 qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("summary.json was skipped: it is a FIFO")), qPrintable(r.out));
    }

    void benchExplainsTheEstimate()
    {
        // silu is one exp per tile on VectorE, and nothing waits: the explanation names VectorE as the bound,
        // the data-proportional work as the largest effect, and its share matches the engine's busy share.
        const QStringList args{QStringLiteral("bench"),
                               QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline.py"),
                               QStringLiteral("--task"),
                               QStringLiteral("silu"),
                               QStringLiteral("--size"),
                               QStringLiteral("small"),
                               QStringLiteral("--explain")};
        const Run text = run(args);
        QVERIFY2(text.exitCode == 0, qPrintable(text.err));
        QVERIFY2(text.out.contains(QStringLiteral("Why nkisim estimates")) &&
                     text.out.contains(QStringLiteral("bound by Vector")) &&
                     text.out.contains(QStringLiteral("data-proportional compute")),
                 qPrintable(text.out));
        const Run json = run(args + QStringList{QStringLiteral("--json")});
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        const QJsonObject x =
            QJsonDocument::fromJson(json.out.toUtf8()).object().value(QStringLiteral("explain")).toObject();
        QCOMPARE(x.value(QStringLiteral("bound")).toString(), QStringLiteral("vector"));
        const QJsonObject first = x.value(QStringLiteral("effects")).toArray().first().toObject();
        QCOMPARE(first.value(QStringLiteral("effect")).toString(), QStringLiteral("throughput"));
        QCOMPARE(first.value(QStringLiteral("engine")).toString(), QStringLiteral("vector"));
        const QJsonObject engines = x.value(QStringLiteral("engines")).toObject();
        const double busy =
            engines.value(QStringLiteral("vector")).toObject().value(QStringLiteral("share")).toDouble();
        QVERIFY2(first.value(QStringLiteral("share")).toDouble() <= busy + 1e-9, qPrintable(json.out));
        // Without --explain the text output stays as it was.
        const Run plain = run(args.mid(0, args.size() - 1));
        QVERIFY(!plain.out.contains(QStringLiteral("Why nkisim estimates")));
    }

    void benchShowsWhyAFigureIsMissing()
    {
        // A task folder without roofline formulas: the runner says why % of peak is missing, and the table
        // and the JSON pass it on (it was never shown).
        QTemporaryDir dir;
        const QString task = dir.filePath(QStringLiteral("silu_noroof"));
        QVERIFY(QDir().mkpath(task));
        const QString source = QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/");
        for (const char *name : {"baseline.py", "reference.py"})
            QVERIFY(QFile::copy(source + QLatin1String(name), task + u'/' + QLatin1String(name)));
        QFile in(source + QStringLiteral("task.json"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject spec = QJsonDocument::fromJson(in.readAll()).object();
        QVERIFY(spec.contains(QStringLiteral("roofline")));
        spec.remove(QStringLiteral("roofline"));
        QFile out(task + QStringLiteral("/task.json"));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(spec).toJson());
        out.close();
        const QStringList args{QStringLiteral("bench"), task + QStringLiteral("/baseline.py"), QStringLiteral("--task"),
                               task, QStringLiteral("--size"), QStringLiteral("small"),
                               QStringLiteral("--timing-only")};
        Run r = run(args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("warning: ")) && r.out.contains(QStringLiteral("roofline")),
                 qPrintable(r.out));
        r = run(args + QStringList{QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonArray warnings =
            QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("warnings")).toArray();
        QVERIFY2(!warnings.isEmpty() && warnings.first().toString().startsWith(QStringLiteral("roofline: ")),
                 qPrintable(r.out));
    }

    void suiteStreamsEachRowAsItFinishes()
    {
        // Rows were printed only at the end: Ctrl+C after 9 finished tasks left none. One slot runs silu first;
        // its runner lets that one result through and holds the rest, so the suite is still running at the
        // interrupt on any machine.
        QTemporaryDir dir;
        RunnerGate gate(dir.filePath(QStringLiteral("gate")));
        gate.release(1);
        const QMap<QString, QString> env{
            {QStringLiteral("ACCELOPT_HOSTS_FILE"), dir.filePath(QStringLiteral("hosts.json"))}};
        const Run added = run({QStringLiteral("hosts"), QStringLiteral("add"), QStringLiteral("gated"),
                               QStringLiteral("--local"), QStringLiteral("--python"), gate.interpreter()},
                              env);
        QVERIFY2(added.exitCode == 0, qPrintable(added.err));
        QProcess process;
        QProcessEnvironment processEnv = QProcessEnvironment::systemEnvironment();
        processEnv.insert(QStringLiteral("ACCELOPT_HOSTS_FILE"), env.first());
        process.setProcessEnvironment(processEnv);
        process.start(QStringLiteral(ACCELOPT_CLI_PATH),
                      {QStringLiteral("suite"), QStringLiteral("--tasks"),
                       QStringLiteral("silu,gqa_full,mamba,bmm_softmax"), QStringLiteral("--size"),
                       QStringLiteral("small"), QStringLiteral("--host"), QStringLiteral("gated"),
                       QStringLiteral("--jobs"), QStringLiteral("1"), QStringLiteral("--json")});
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT((out += process.readAllStandardOutput()).contains('\n') ||
                                     process.state() == QProcess::NotRunning,
                                 120000);
        QVERIFY2(out.contains('\n'), "no row before the suite ended");
        QTRY_VERIFY_WITH_TIMEOUT(!gate.holders().isEmpty(), 120000); // the next task is done but held
        QVERIFY2(process.state() == QProcess::Running, qPrintable(QString::fromUtf8(process.readAllStandardError())));
        ::kill(pid_t(process.processId()), SIGINT);
        QVERIFY(process.waitForFinished(30000));
        out += process.readAllStandardOutput();
        QCOMPARE(out.count('\n'), 1); // silu's row, and only it
        const QJsonObject first = QJsonDocument::fromJson(out.left(out.indexOf('\n'))).object();
        QCOMPARE(first.value(QStringLiteral("task")).toString(), QStringLiteral("silu"));
        QCOMPARE(first.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
    }

    void benchWritesAChromeTrace()
    {
        QTemporaryDir dir;
        const QString trace = dir.filePath(QStringLiteral("silu.trace.json"));
        const QStringList args{QStringLiteral("bench"), QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline.py"),
                               QStringLiteral("--task"), QStringLiteral("silu"), QStringLiteral("--size"),
                               QStringLiteral("small"), QStringLiteral("--trace"), trace};
        Run r = run(args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("instructions to ") + trace), qPrintable(r.err));
        QFile file(trace);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QJsonParseError error;
        const QJsonObject doc = QJsonDocument::fromJson(file.readAll(), &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        int complete = 0;
        for (const QJsonValue &v : doc.value(QStringLiteral("traceEvents")).toArray()) {
            const QJsonObject e = v.toObject();
            for (const char *key : {"name", "ph", "pid", "tid"})
                QVERIFY2(e.contains(QLatin1StringView(key)), key);
            if (e.value(QStringLiteral("ph")).toString() == QStringLiteral("X")) {
                ++complete;
                QVERIFY(e.value(QStringLiteral("dur")).toDouble(-1) >= 0 && e.contains(QStringLiteral("ts")));
            }
        }
        QVERIFY(complete > 0);
        // Bad input: a folder that does not exist, a cap out of range.
        r = run(QStringList(args).replaceInStrings(trace, QStringLiteral("/nonexistent/dir/t.json")));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("does not exist")), qPrintable(r.err));
        r = run(args + QStringList{QStringLiteral("--trace-cap"), QStringLiteral("0")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("--trace-cap")));
    }

    void benchOfABrokenKernelExitsNonZeroWithTheLine()
    {
        QTemporaryDir dir;
        const QString kernel = dir.filePath(QStringLiteral("broken.py"));
        QFile f(kernel);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("import neuronxcc.nki.language as nl\n\ndef kernel(x):\n    return nl.load(x[\n");
        f.close();
        Run r = run({QStringLiteral("bench"), kernel, QStringLiteral("--task"), QStringLiteral("silu"),
                     QStringLiteral("--size"), QStringLiteral("small")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains(QStringLiteral("compile_error")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("line")), qPrintable(r.out));

        r = run({QStringLiteral("bench"), dir.filePath(QStringLiteral("missing.py")),
                 QStringLiteral("--task"), QStringLiteral("silu")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("does not exist")));
        r = run({QStringLiteral("bench"), kernel});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("belongs to no task")), qPrintable(r.err));
        r = run({QStringLiteral("bench"), kernel, QStringLiteral("--task"), QStringLiteral("silu"),
                 QStringLiteral("--seeds"), QStringLiteral("1,x")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("--seeds")));
        r = run({QStringLiteral("bench"), kernel, QStringLiteral("--task"), QStringLiteral("silu"),
                 QStringLiteral("--target"), QStringLiteral("trn9")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("trn1, trn2 or trn3")), qPrintable(r.err));
        r = run({QStringLiteral("bench"),
                 QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline.py"),
                 QStringLiteral("--task"), QStringLiteral("no_such_task"), QStringLiteral("--size"),
                 QStringLiteral("small")});
        QCOMPARE(r.exitCode, 2); // an unknown task is a usage error, found before a runner starts
        QVERIFY2(r.err.contains(QStringLiteral("no task 'no_such_task'")), qPrintable(r.err));
    }

    void suiteRunsChosenTasks()
    {
        const Run r = run({QStringLiteral("suite"), QStringLiteral("--tasks"), QStringLiteral("silu,adamw"),
                           QStringLiteral("--size"), QStringLiteral("small"), QStringLiteral("--timing-only"),
                           QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList lines = r.out.split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2);
        // rows stream in the order the evaluations finish, which depends on the machine, so find them by task
        QHash<QString, QJsonObject> byTask;
        for (const QString &line : lines) {
            const QJsonObject row = QJsonDocument::fromJson(line.toUtf8()).object();
            byTask.insert(row.value(QStringLiteral("task")).toString(), row);
        }
        QCOMPARE(byTask.keys().size(), 2);
        QVERIFY(byTask.contains(QStringLiteral("silu")));
        QVERIFY(byTask.contains(QStringLiteral("adamw")));
        for (const QJsonObject &row : std::as_const(byTask))
            QVERIFY(row.value(QStringLiteral("correct")).isNull());
        // a timing-only eval of a shipped task runs on its declared shapes
        QCOMPARE(byTask.value(QStringLiteral("silu")).value(QStringLiteral("timing_inputs")).toString(),
                 QStringLiteral("declared shapes"));
        const Run bad =
            run({QStringLiteral("suite"), QStringLiteral("--tasks"), QStringLiteral("silu,nope")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains(QStringLiteral("no task 'nope'")));
    }

    void timeoutDefaultGrowsWithSeedsAndIsValidated()
    {
        for (const QString &command : {QStringLiteral("suite"), QStringLiteral("bench")}) {
            const Run help = run({command, QStringLiteral("--help")});
            QCOMPARE(help.exitCode, 0);
            QVERIFY2(help.out.simplified().contains(QStringLiteral("300 + 600 per correctness seed")),
                     qPrintable(help.out));
        }
        // NaN and infinity once switched the stuck-runner watchdog off; 1e99 and 0.001 reached the runner,
        // which refused them as an infrastructure error.
        Run r;
        for (const char *bad : {"0", "-1", "nan", "inf", "-inf", "1e99", "0.001", "abc", ""}) {
            r = run({QStringLiteral("suite"), QStringLiteral("--tasks"), QStringLiteral("silu"),
                     QStringLiteral("--timeout"), QString::fromLatin1(bad)});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(QStringLiteral("--timeout must be a number of seconds from 0.5 to 604800")),
                     qPrintable(r.err));
        }
        // An explicit timeout still wins. The kernel never returns, so it runs past 0.5 s on any machine,
        // however fast (a real kernel finishing in time on a quick machine once made this test fail).
        QTemporaryDir dir;
        const QString spinning = dir.filePath(QStringLiteral("spinning.py"));
        QFile f(spinning);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("import neuronxcc.nki.language as nl\n\n"
                "def kernel(x):\n    n = 0\n    while True:\n        n += 1\n");
        f.close();
        r = run({QStringLiteral("bench"), spinning, QStringLiteral("--task"), QStringLiteral("silu"),
                 QStringLiteral("--size"), QStringLiteral("small"), QStringLiteral("--timeout"),
                 QStringLiteral("0.5"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 1);
        const QJsonObject result = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(result.value(QStringLiteral("status")).toString(), QStringLiteral("timeout"));
        QVERIFY2(result.value(QStringLiteral("error")).toString().contains(QStringLiteral("0.5")),
                 qPrintable(r.out));
    }

    void hostsAddListRemoveAndACorruptFile()
    {
        QTemporaryDir dir;
        const QMap<QString, QString> env{
            {QStringLiteral("ACCELOPT_HOSTS_FILE"), dir.filePath(QStringLiteral("hosts.json"))}};
        Run r = run({QStringLiteral("hosts"), QStringLiteral("add"), QStringLiteral("trn"),
                     QStringLiteral("--ssh"), QStringLiteral("trn-box"), QStringLiteral("--user"),
                     QStringLiteral("ubuntu"), QStringLiteral("--slots"), QStringLiteral("2"),
                     QStringLiteral("--backend"), QStringLiteral("neuron"), QStringLiteral("--venv"),
                     QStringLiteral("/opt/aws_neuronx_venv_pytorch")},
                    env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = run({QStringLiteral("hosts"), QStringLiteral("list")}, env);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith(QStringLiteral("local")));
        QVERIFY(r.out.contains(QStringLiteral("ubuntu@trn-box")));
        QVERIFY(r.out.contains(QStringLiteral("neuron/trn1 slots=2")));

        r = run({QStringLiteral("hosts"), QStringLiteral("add"), QStringLiteral("bad name!"),
                 QStringLiteral("--ssh"), QStringLiteral("x")},
                env);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("host name")));
        r = run({QStringLiteral("hosts"), QStringLiteral("remove"), QStringLiteral("local")}, env);
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains(QStringLiteral("built-in")));
        r = run({QStringLiteral("hosts"), QStringLiteral("remove"), QStringLiteral("trn")}, env);
        QCOMPARE(r.exitCode, 0);

        // A SLURM cluster submitted to from this machine; its settings go where salloc reads them.
        r = run({"hosts", "add", "pc", "--slurm", "local", "--partition", "trn", "--time", "1:00:00", "--nodes", "2",
                 "--slots", "4", "--weight", "2"},
                env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("SLURM from this machine")), qPrintable(r.out));
        r = run({"hosts", "list", "--json"}, env);
        const QJsonObject pc = QJsonDocument::fromJson(r.out.split(u'\n').value(1).toUtf8()).object();
        QCOMPARE(pc.value(QStringLiteral("kind")).toString(), QStringLiteral("slurm"));
        QCOMPARE(pc.value(QStringLiteral("partition")).toString(), QStringLiteral("trn"));
        QCOMPARE(pc.value(QStringLiteral("time_limit")).toString(), QStringLiteral("1:00:00"));
        QCOMPARE(pc.value(QStringLiteral("nodes")).toInt(), 2);
        QCOMPARE(pc.value(QStringLiteral("weight")).toDouble(), 2.0);
        QVERIFY(!pc.contains(QStringLiteral("ssh_host")));
        const struct
        {
            QStringList args;
            const char *says;
        } refused[] = {{{"x", "--ssh", "box", "--partition", "trn"}, "--partition is for a SLURM host"},
                       {{"x", "--slurm", "local", "--partition=-A"}, "must not start with '-'"},
                       {{"x", "--slurm", "local", "--nodes", "0"}, "nodes must be between 1 and 1024"},
                       {{"x", "--slurm", "local", "--weight", "none"}, "weight must be a number above 0"},
                       {{"x", "--slurm", "local", "--ssh", "box"}, "exactly one of --ssh HOST, --slurm HEAD"}};
        for (const auto &bad : refused) {
            r = run(QStringList{"hosts", "add"} + bad.args, env);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(QLatin1String(bad.says)), qPrintable(r.err));
        }
        QCOMPARE(run({"hosts", "remove", "pc"}, env).exitCode, 0);

        QFile corrupt(dir.filePath(QStringLiteral("hosts.json")));
        QVERIFY(corrupt.open(QIODevice::WriteOnly));
        corrupt.write("{\"version\": 1, \"hosts\": [");
        corrupt.close();
        r = run({QStringLiteral("hosts"), QStringLiteral("add"), QStringLiteral("other"),
                 QStringLiteral("--ssh"), QStringLiteral("y")},
                env);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("not valid JSON")), qPrintable(r.err));
        QVERIFY(corrupt.open(QIODevice::ReadOnly));
        QCOMPARE(corrupt.readAll(), QByteArray("{\"version\": 1, \"hosts\": [")); // never overwritten
    }

    void checkSaysWhichNkiEachBackendTakes()
    {
        // A local host whose interpreter sees the stand-in of a current Neuron SDK (2.33: the nki namespace
        // only), as a Trainium host set up today would.
        QTemporaryDir dir;
        const QString standin = QStringLiteral(ACCELOPT_SOURCE_DIR "/tests/fixtures/runner/fake_nki_current");
        const QString python = dir.filePath(QStringLiteral("python-with-current-sdk"));
        QFile f(python);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral("#!/bin/sh\nPYTHONPATH='%1':\"$PYTHONPATH\" PATH='%1/bin':\"$PATH\" exec /usr/bin/python3 \"$@\"\n")
                    .arg(standin)
                    .toUtf8());
        f.close();
        f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        const QMap<QString, QString> env{
            {QStringLiteral("ACCELOPT_HOSTS_FILE"), dir.filePath(QStringLiteral("hosts.json"))}};
        Run r = run({QStringLiteral("hosts"), QStringLiteral("add"), QStringLiteral("trn-today"), QStringLiteral("--local"),
                     QStringLiteral("--python"), python, QStringLiteral("--backend"), QStringLiteral("neuron")},
                    env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = run({QStringLiteral("hosts"), QStringLiteral("check"), QStringLiteral("trn-today")}, env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("sim          classic and current NKI")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("neuron       SDK 2.33")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("takes current NKI")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("classic: ")), qPrintable(r.out)); // why classic is refused
        // A classic kernel sent there is refused, and the message offers the port.
        r = run({QStringLiteral("bench"), QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline.py"),
                 QStringLiteral("--task"), QStringLiteral("silu"), QStringLiteral("--size"), QStringLiteral("small"),
                 QStringLiteral("--host"), QStringLiteral("trn-today")},
                env);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains(QStringLiteral("compile_error")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("accelopt port KERNEL --task T")), qPrintable(r.out));
    }

    void checkOfTheLocalHostSaysHello()
    {
        QTemporaryDir dir;
        const Run r =
            run({QStringLiteral("hosts"), QStringLiteral("check"), QStringLiteral("local")},
                {{QStringLiteral("ACCELOPT_HOSTS_FILE"), dir.filePath(QStringLiteral("hosts.json"))}});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(QStringLiteral("protocol 1")));
        QVERIFY(r.out.contains(QStringLiteral("sim")));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
