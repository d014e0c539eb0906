#include "memory/experiencestore.h"
#include "optimizerig.h"
#include "store/sessionstore.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTest>

// A user's own kernel end to end: accelopt task new / task check / tasks list, then bench, a short optimize
// against the stand-in model, export and the memory, all on the user task, with the real CLI, the local host
// (runner and nkisim) and real files. The kernel is silu's baseline renamed to my_silu
// (tests/fixtures/usertasks/cli); the stand-in plays the silu fixtures, whose kernels are named `kernel`.
class TestCliTask : public QObject
{
    Q_OBJECT
    using Workspace = OptimizeRig::Workspace;
    using Run = OptimizeRig::Run;
    OptimizeRig m_rig;
    ScriptedAgents m_silu;
    Workspace m_w;
    QString m_project; // a repository of the user's: .git, src/my_silu.py, ref/my_silu_ref.py

    static QString fixture(const QString &name)
    {
        return QStringLiteral(ACCELOPT_TEST_FIXTURES "/usertasks/cli/") + name;
    }

    static bool copy(const QString &from, const QString &to)
    {
        QDir().mkpath(QFileInfo(to).absolutePath());
        QFile::remove(to);
        return QFile::copy(from, to);
    }

    // The CLI in the project's folder, with the user's data folder inside the workspace.
    Run cli(const QStringList &args, const QString &cwd = {})
    {
        QProcess process;
        QProcessEnvironment env = m_rig.environment(m_w);
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_w.dir.filePath(QStringLiteral("xdg")));
        process.setProcessEnvironment(env);
        process.setWorkingDirectory(cwd.isEmpty() ? m_project : cwd);
        process.start(QStringLiteral(ACCELOPT_CLI_PATH), args);
        Run run;
        if (!process.waitForFinished(600000))
            return run;
        run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
        run.out = QString::fromUtf8(process.readAllStandardOutput());
        run.err = QString::fromUtf8(process.readAllStandardError());
        return run;
    }

    QString tasksDir() const { return QDir(m_project).filePath(QStringLiteral(".accelopt/tasks")); }

    QStringList newTask(const QString &name, const QString &reference) const
    {
        return {QStringLiteral("task"),
                QStringLiteral("new"),
                name,
                QStringLiteral("--kernel"),
                QStringLiteral("src/my_silu.py"),
                QStringLiteral("--reference"),
                reference,
                QStringLiteral("--input"),
                QStringLiteral("x=128x32x7168:float32"),
                QStringLiteral("--small"),
                QStringLiteral("x=128x4x1024")};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_rig.start(error), qPrintable(error));
        m_project = m_w.dir.filePath(QStringLiteral("project"));
        QVERIFY(QDir().mkpath(QDir(m_project).filePath(QStringLiteral(".git"))));
        QVERIFY(copy(fixture(QStringLiteral("my_silu.py")),
                     QDir(m_project).filePath(QStringLiteral("src/my_silu.py"))));
        QVERIFY(copy(fixture(QStringLiteral("my_silu_ref.py")),
                     QDir(m_project).filePath(QStringLiteral("ref/my_silu_ref.py"))));
        QVERIFY(copy(fixture(QStringLiteral("raises_ref.py")),
                     QDir(m_project).filePath(QStringLiteral("ref/raises.py"))));
        QVERIFY2(m_silu.load(QStringLiteral(ACCELOPT_TEST_FIXTURES "/optimize/silu"),
                             QDir(m_project).filePath(QStringLiteral("src/my_silu.py")), error),
                 qPrintable(error));
        m_rig.writeLlmConfig(m_w);
        m_rig.useAgents(m_silu);
    }

    // Bad input creates nothing: the project's tasks folder stays without a task.
    void badInputCreatesNothing()
    {
        Run r = cli(newTask(QStringLiteral("my_silu"), QStringLiteral("ref/raises.py")));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("not created")), qPrintable(r.err + r.out));
        QVERIFY2((r.err + r.out).contains(QStringLiteral("line 6")), qPrintable(r.err + r.out));
        QVERIFY(QDir(tasksDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden).isEmpty());

        r = cli({QStringLiteral("task"), QStringLiteral("new"), QStringLiteral("my_silu"),
                 QStringLiteral("--kernel"), QStringLiteral("src/my_silu.py"), QStringLiteral("--reference"),
                 QStringLiteral("ref/my_silu_ref.py")});
        QCOMPARE(r.exitCode, 2); // the file states no shape for x
        QVERIFY2(r.err.contains(QStringLiteral("--input x=")), qPrintable(r.err));

        r = cli({QStringLiteral("task"), QStringLiteral("new"), QStringLiteral("my silu"),
                 QStringLiteral("--kernel"), QStringLiteral("src/my_silu.py"), QStringLiteral("--reference"),
                 QStringLiteral("ref/my_silu_ref.py")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("cannot name a task")), qPrintable(r.err));

        const QString two = QDir(m_project).filePath(QStringLiteral("src/two.py"));
        QFile f(two);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("@nki.jit\ndef a(x):\n    pass\n\n@nki.jit\ndef b(x):\n    pass\n");
        f.close();
        r = cli({QStringLiteral("task"), QStringLiteral("new"), QStringLiteral("two"),
                 QStringLiteral("--kernel"), two, QStringLiteral("--reference"),
                 QStringLiteral("ref/my_silu_ref.py"), QStringLiteral("--input"), QStringLiteral("x=4x4")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("several @nki.jit functions (a, b)")), qPrintable(r.err));
        QVERIFY(QDir(tasksDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden).isEmpty());
    }

    void createsChecksListsAndBenchmarks()
    {
        Run r = cli(newTask(QStringLiteral("my_silu"), QStringLiteral("ref/my_silu_ref.py")));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const QString folder = QDir(tasksDir()).filePath(QStringLiteral("my_silu"));
        QVERIFY2(r.out.contains(QStringLiteral("created ")), qPrintable(r.out));
        QFile json(QDir(folder).filePath(QStringLiteral("task.json")));
        QVERIFY(json.open(QIODevice::ReadOnly));
        const QJsonObject task = QJsonDocument::fromJson(json.readAll()).object();
        QCOMPARE(task.value(QStringLiteral("function")).toString(), QStringLiteral("my_silu"));
        QCOMPARE(task.value(QStringLiteral("kernel_file")).toString(),
                 QStringLiteral("../../../src/my_silu.py"));
        // The roofline counted by the check: the bytes from the inputs and outputs (2 x 128x32x7168 x 4).
        const QJsonObject roof = task.value(QStringLiteral("roofline")).toObject();
        QCOMPARE(roof.value(QStringLiteral("min_bytes")).toDouble(), 2.0 * 128 * 32 * 7168 * 4);
        QVERIFY2(roof.value(QStringLiteral("vector_flops")).toDouble() > 0, qPrintable(json.fileName()));
        QVERIFY(QDir(tasksDir()).entryList({QStringLiteral(".new-*")}, QDir::Dirs | QDir::Hidden).isEmpty());

        r = cli(newTask(QStringLiteral("my_silu"), QStringLiteral("ref/my_silu_ref.py")));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("exists already")), qPrintable(r.err));

        r = cli({QStringLiteral("task"), QStringLiteral("check"), folder});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains(QStringLiteral("passes its check")), qPrintable(r.out));
        QVERIFY2(!r.out.contains(QStringLiteral("FAILED")), qPrintable(r.out));

        r = cli({QStringLiteral("tasks"), QStringLiteral("list"), QStringLiteral("--json")},
                QDir(m_project).filePath(QStringLiteral("src")));
        QCOMPARE(r.exitCode, 0);
        const QJsonArray all = QJsonDocument::fromJson(r.out.toUtf8()).array();
        QVERIFY(all.size() > 14);
        QCOMPARE(all.first().toObject().value(QStringLiteral("name")).toString(), QStringLiteral("my_silu"));
        QCOMPARE(all.first().toObject().value(QStringLiteral("origin")).toString(),
                 QStringLiteral("project"));

        // bench finds the task from the file (task.json's kernel_file) and by name from inside the project.
        r = cli({QStringLiteral("bench"), QStringLiteral("src/my_silu.py"), QStringLiteral("--size"),
                 QStringLiteral("small"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.err.contains(QStringLiteral("the project task my_silu")), qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("\"correct\":true")), qPrintable(r.out));
        r = cli({QStringLiteral("bench"), QStringLiteral("src/my_silu.py"), QStringLiteral("--task"),
                 QStringLiteral("my_silu"), QStringLiteral("--size"), QStringLiteral("small")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    }

    // A task edited since its check is checked again before a search, and a failing one starts none.
    void anEditedTaskIsCheckedBeforeASearch()
    {
        const QString folder = QDir(tasksDir()).filePath(QStringLiteral("my_silu"));
        QVERIFY(QFileInfo::exists(QDir(folder).filePath(QStringLiteral(".checked.json"))));
        const QString reference = QDir(folder).filePath(QStringLiteral("reference.py"));
        QFile in(reference);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray good = in.readAll();
        in.close();
        QFile out(reference);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(good + "\n\ndef forward(x):\n    return x * float('nan')\n");
        out.close();
        Workspace other;
        m_rig.writeLlmConfig(other);
        const Run r = m_rig.cli(other, OptimizeRig::optimizeArgs(folder, 11));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("no search starts")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("NaN")), qPrintable(r.err));
        QVERIFY(r.event(QStringLiteral("session")).isEmpty());
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(good);
        out.close();
    }

    // A layer norm whose file states its shapes in a comment: task new needs only the small size.
    void shapesFromTheKernelFile()
    {
        QVERIFY(copy(fixture(QStringLiteral("layer_norm.py")),
                     QDir(m_project).filePath(QStringLiteral("src/layer_norm.py"))));
        QVERIFY(copy(fixture(QStringLiteral("layer_norm_ref.py")),
                     QDir(m_project).filePath(QStringLiteral("ref/layer_norm_ref.py"))));
        Run r = cli({QStringLiteral("task"), QStringLiteral("new"), QStringLiteral("layer_norm"),
                     QStringLiteral("--kernel"), QStringLiteral("src/layer_norm.py"),
                     QStringLiteral("--reference"), QStringLiteral("ref/layer_norm_ref.py"),
                     QStringLiteral("--small"), QStringLiteral("x=128x256"), QStringLiteral("--small"),
                     QStringLiteral("gamma=1x256"), QStringLiteral("--small"), QStringLiteral("beta=1x256")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(
            r.out.contains(QStringLiteral("x 512x1024 float32, gamma 1x1024 float32, beta 1x1024 float32")),
            qPrintable(r.out));
        r = cli({QStringLiteral("bench"), QStringLiteral("src/layer_norm.py"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0 && r.out.contains(QStringLiteral("\"correct\":true")),
                 qPrintable(r.err + r.out));
    }

    // A PyTorch reference in the KernelBench convention (CI has python3-torch): made, benchmarked and
    // searched.
    void aPyTorchReference()
    {
        const QString fixtures = QStringLiteral(ACCELOPT_TEST_FIXTURES "/usertasks/torch_softmax/");
        QVERIFY(copy(fixtures + QStringLiteral("baseline.py"),
                     QDir(m_project).filePath(QStringLiteral("src/softmax.py"))));
        Run r = cli({QStringLiteral("task"), QStringLiteral("new"), QStringLiteral("torch_softmax"),
                     QStringLiteral("--kernel"), QStringLiteral("src/softmax.py"),
                     QStringLiteral("--reference"), fixtures + QStringLiteral("reference.py"),
                     QStringLiteral("--input"), QStringLiteral("x=256x2048"), QStringLiteral("--small"),
                     QStringLiteral("x=128x512"), QStringLiteral("--rel-tol"), QStringLiteral("1e-4")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains(QStringLiteral("pytorch reference")), qPrintable(r.out));
        r = cli({QStringLiteral("bench"), QStringLiteral("src/softmax.py"), QStringLiteral("--size"),
                 QStringLiteral("small"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0 && r.out.contains(QStringLiteral("\"correct\":true")),
                 qPrintable(r.err + r.out));
        Workspace w;
        m_rig.writeLlmConfig(w);
        QStringList args =
            OptimizeRig::optimizeArgs(QDir(tasksDir()).filePath(QStringLiteral("torch_softmax")), 5);
        args[args.indexOf(QStringLiteral("-T")) + 1] = QStringLiteral("1");
        const Run search = m_rig.cli(w, args);
        QVERIFY2(search.exitCode == 0, qPrintable(search.err + search.out));
        SessionStore store(w.db());
        QVERIFY(store.open());
        const QString session =
            search.event(QStringLiteral("session")).value(QStringLiteral("session")).toString();
        QVERIFY(store.session(session));
        QCOMPARE(store.session(session)->taskName, QStringLiteral("torch_softmax"));
    }

    // A search, its export and its lessons work on the user task as on an NKIBench one.
    void optimizesExportsAndLearns()
    {
        const QString folder = QDir(tasksDir()).filePath(QStringLiteral("my_silu"));
        QStringList args = OptimizeRig::optimizeArgs(folder, 11);
        const Run r = m_rig.cli(m_w, args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const QJsonObject done = r.event(QStringLiteral("finished"));
        QVERIFY2(done.value(QStringLiteral("speedup")).toDouble() > 1.05, qPrintable(r.out));
        const QString session =
            r.event(QStringLiteral("session")).value(QStringLiteral("session")).toString();
        SessionStore store(m_w.db());
        QVERIFY(store.open());
        const auto best = store.candidate(done.value(QStringLiteral("best_candidate")).toString());
        QVERIFY(best);
        QVERIFY2(m_silu.variantIn(best->source).startsWith(QStringLiteral("fast")), qPrintable(best->source));

        const QString to = m_w.dir.filePath(QStringLiteral("exported"));
        const Run exported = m_rig.cli(m_w, {QStringLiteral("export"), session, QStringLiteral("--to"), to});
        QVERIFY2(exported.exitCode == 0, qPrintable(exported.err + exported.out));
        const QStringList files = QDir(to).entryList({QStringLiteral("*.py")}, QDir::Files);
        QVERIFY2(!files.isEmpty(), qPrintable(exported.out));
        QFile out(QDir(to).filePath(files.first()));
        QVERIFY(out.open(QIODevice::ReadOnly));
        QVERIFY2(QString::fromUtf8(out.readAll()).contains(QStringLiteral("my_silu")),
                 "the header names the task");

        ExperienceStore memory(m_w.memory());
        QVERIFY(memory.open());
        QVERIFY2(!memory.list(QStringLiteral("my_silu")).isEmpty(), "lessons are filed under the user task");

        // Resumed with more iterations, and compared with its baseline file, as an NKIBench task's session
        // is.
        const Run resumed = m_rig.cli(m_w, {QStringLiteral("resume"), session.left(8), QStringLiteral("-T"),
                                            QStringLiteral("3"), QStringLiteral("--json")});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err + resumed.out));
        QCOMPARE(resumed.all(QStringLiteral("iteration")).size(), 1); // iteration 3 only
        const Run compared = m_rig.cli(m_w, {QStringLiteral("compare"),
                                             QDir(m_project).filePath(QStringLiteral("src/my_silu.py")),
                                             best->id.left(12), QStringLiteral("--task"), folder,
                                             QStringLiteral("--size"), QStringLiteral("small")});
        QVERIFY2(compared.exitCode == 0, qPrintable(compared.err + compared.out));
        const QString latency =
            compared.out.section(QStringLiteral("Latency (mean)"), 1).section(u'\n', 0, 0);
        QVERIFY2(latency.endsWith(QStringLiteral("better")), qPrintable(compared.out.right(1200)));
    }
};

QTEST_GUILESS_MAIN(TestCliTask)
#include "tst_cli_task.moc"
