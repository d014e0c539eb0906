#include "export/kernelexporter.h"
#include "export/taskdetector.h"
#include "model/datasetlayout.h"
#include "model/tasksources.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

// Which task a kernel belongs to, from where it lies and what its header says; cases on real folders.
class TestTaskDetector : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    QString put(const QString &relative, const QByteArray &bytes = "def kernel(x):\n    return x\n")
    {
        const QString path = m_dir.filePath(relative);
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        f.write(bytes);
        return path;
    }
    QString tasks() const { return m_dir.filePath(QStringLiteral("tasks")); }

private Q_SLOTS:
    void initTestCase()
    {
        put(QStringLiteral("tasks/silu/task.json"), "{}");
        put(QStringLiteral("tasks/silu/baseline.py"));
        put(QStringLiteral("tasks/matmul_add_rmsnorm/task.json"), "{}");
        put(QStringLiteral("elsewhere/mytask/task.json"), "{}");
        put(QStringLiteral("ds/reference/matmul_add_rmsnorm_numpy.py"));
        put(QStringLiteral("ds/reference/matmul_numpy.py"));
        put(QStringLiteral("ds/kernels/matmul_add_rmsnorm_nki_0.py"));
        put(QStringLiteral("ds/kernels/matmul_nki_3.py"));
        put(QStringLiteral("ds/kernels/unknown_nki_0.py"));
        // The original NKIBench file names: parameters in the names, the problem up to the first one.
        put(QStringLiteral("nkibench/reference/silu_M4096_N7168_numpy_0.py"));
        put(QStringLiteral("nkibench/kernels/silu_M4096_N7168_0.py"));
        put(QStringLiteral("nkibench/reference/matmul_add_rmsnorm_M4096_N2048_K2048_numpy_1.py"));
        put(QStringLiteral("nkibench/kernels/matmul_add_rmsnorm_M4096_N2048_K2048_0.py"));
        put(QStringLiteral("nkibench/reference/matmul_M4096_N12288_K5120_numpy_2.py"));
        put(QStringLiteral("nkibench/kernels/matmul_M4096_N12288_K5120_0.py"));
        // With a summary.json, its listing decides, whatever the file is called.
        put(QStringLiteral("summarized/summary.json"),
            R"({"swiglu": {"cases": {"2": {"values": {"M": 4096}, "impls": [)"
            R"({"task": "./reference/ref_two.py", "kernel": "./kernels/oddly_named_0.py"}]}}}})");
        put(QStringLiteral("summarized/reference/ref_two.py"));
        put(QStringLiteral("summarized/kernels/oddly_named_0.py"));
    }

    void detects_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("source");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("refKey"); // the key that locates the task
        QTest::addColumn<QString>("how");

        const QByteArray plain = "def kernel(x):\n    return x\n";
        QTest::newRow("shipped baseline") << QStringLiteral("tasks/silu/baseline.py") << plain << "silu"
                                          << "name"
                                          << "the baseline of task silu";
        QTest::newRow("other file of a shipped task")
            << QStringLiteral("tasks/silu/mine.py") << plain << "silu"
            << "name"
            << "a kernel of task silu";
        QTest::newRow("task folder elsewhere")
            << QStringLiteral("elsewhere/mytask/baseline.py") << plain << "mytask"
            << "dir"
            << "task folder";
        QTest::newRow("original layout, underscores in the name")
            << QStringLiteral("ds/kernels/matmul_add_rmsnorm_nki_0.py") << plain << "matmul_add_rmsnorm"
            << "dataset"
            << "dataset";
        QTest::newRow("original layout, a later kernel")
            << QStringLiteral("ds/kernels/matmul_nki_3.py") << plain << "matmul"
            << "dataset"
            << "dataset";
        QTest::newRow("NKIBench names: silu_M4096_N7168_0.py is problem silu")
            << QStringLiteral("nkibench/kernels/silu_M4096_N7168_0.py") << plain << "silu"
            << "dataset"
            << "task silu in the dataset";
        QTest::newRow("NKIBench names with underscores")
            << QStringLiteral("nkibench/kernels/matmul_add_rmsnorm_M4096_N2048_K2048_0.py") << plain
            << "matmul_add_rmsnorm"
            << "dataset"
            << "dataset";
        QTest::newRow("NKIBench names: matmul is not matmul_add_rmsnorm")
            << QStringLiteral("nkibench/kernels/matmul_M4096_N12288_K5120_0.py") << plain << "matmul"
            << "dataset"
            << "dataset";
        QTest::newRow("summary.json names the problem")
            << QStringLiteral("summarized/kernels/oddly_named_0.py") << plain << "swiglu"
            << "dataset"
            << "dataset";
        const QByteArray exported =
            (KernelExporter::headerBegin + QStringLiteral("\n# task:       silu\n") +
             KernelExporter::headerEnd + QStringLiteral("\n\ndef kernel(x):\n    pass\n"))
                .toUtf8();
        QTest::newRow("exported kernel anywhere") << QStringLiteral("project/fast.py") << exported << "silu"
                                                  << "name"
                                                  << "exported";
        QTest::newRow("exported, unsaved (no path)") << QString() << exported << "silu"
                                                     << "name"
                                                     << "exported";
    }

    void detects()
    {
        QFETCH(QString, file);
        QFETCH(QByteArray, source);
        QFETCH(QString, name);
        QFETCH(QString, refKey);
        QFETCH(QString, how);
        const QString path = file.isEmpty() ? QString() : put(file, source);
        const auto found = TaskDetector::detect(path, QString::fromUtf8(source), tasks());
        QVERIFY(found);
        QCOMPARE(found->name, name);
        QVERIFY2(found->ref.contains(refKey), qPrintable(QJsonDocument(found->ref).toJson()));
        QVERIFY2(found->how.contains(how), qPrintable(found->how));
    }

    // What the detector names, TaskSources finds: the regression where the window named a problem whose files
    // it then could not find (kernels/silu_M4096_N7168_*_0.py).
    void detectedDatasetProblemsLoad_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("reference");
        QTest::newRow("silu") << QStringLiteral("nkibench/kernels/silu_M4096_N7168_0.py")
                              << QStringLiteral("silu_M4096_N7168_numpy_0.py");
        QTest::newRow("matmul") << QStringLiteral("nkibench/kernels/matmul_M4096_N12288_K5120_0.py")
                                << QStringLiteral("matmul_M4096_N12288_K5120_numpy_2.py");
        QTest::newRow("summary") << QStringLiteral("summarized/kernels/oddly_named_0.py")
                                 << QStringLiteral("ref_two.py");
    }

    void detectedDatasetProblemsLoad()
    {
        QFETCH(QString, file);
        QFETCH(QString, reference);
        const auto found = TaskDetector::detect(m_dir.filePath(file), QString(), tasks());
        QVERIFY(found);
        QString error;
        const auto sources = TaskSources::load(found->ref, tasks(), error);
        QVERIFY2(sources, qPrintable(error));
        QCOMPARE(QFileInfo(sources->kernelPath).fileName(), QFileInfo(file).fileName());
        QCOMPARE(QFileInfo(sources->referencePath).fileName(), reference);
    }

    void datasetProblemsAreNamedAsTheRunnerNamesThem()
    {
        // summary.json's problems when it lists them, else the references' names up to their first parameter
        QCOMPARE(DatasetLayout::problems(m_dir.filePath(QStringLiteral("summarized"))),
                 QStringList{"swiglu"});
        QCOMPARE(DatasetLayout::problems(m_dir.filePath(QStringLiteral("nkibench"))),
                 (QStringList{"matmul", "matmul_add_rmsnorm", "silu"}));
    }

    void aSummaryThatIsNotARegularFileIsNeverOpened()
    {
        // A FIFO with no writer blocked the reader (the window's thread among them); it is skipped and said.
        QTemporaryDir dir;
        QDir().mkpath(dir.filePath(QStringLiteral("reference")));
        QFile(dir.filePath(QStringLiteral("reference/silu_M128_numpy_0.py"))).open(QIODevice::WriteOnly);
        QVERIFY(mkfifo(QFile::encodeName(dir.filePath(QStringLiteral("summary.json"))).constData(), 0600) ==
                0);
        QString skipped;
        QCOMPARE(DatasetLayout::problems(dir.path(), &skipped), QStringList{"silu"});
        QVERIFY2(skipped.contains(QStringLiteral("summary.json is not a regular file")), qPrintable(skipped));
        QCOMPARE(QFileInfo(DatasetLayout::find(dir.path(), QStringLiteral("silu")).reference).fileName(),
                 QStringLiteral("silu_M128_numpy_0.py"));
        // JSON nested deeper than any summary: said as such, not a silent empty listing
        QFile deep(dir.filePath(QStringLiteral("summary.json")));
        QVERIFY(deep.remove());
        QVERIFY(deep.open(QIODevice::WriteOnly));
        deep.write(QByteArray(5000, '[') + QByteArray(5000, ']'));
        deep.close();
        skipped.clear();
        QCOMPARE(DatasetLayout::problems(dir.path(), &skipped), QStringList{"silu"});
        QVERIFY2(skipped.contains(QStringLiteral("is not valid JSON")), qPrintable(skipped));
    }

    // A task accelopt task new made records its kernel file; the file is then found wherever it lies.
    void findsTheUserTaskMadeFromAFile()
    {
        const QString kernel = put(QStringLiteral("project/src/row_softmax.py"),
                                   "@nki.jit\ndef row_softmax(x):\n    return x\n");
        put(QStringLiteral("project/.accelopt/tasks/row_softmax/task.json"),
            R"({"name": "row_softmax", "kernel_file": "../../../src/row_softmax.py"})");
        put(QStringLiteral("project/.accelopt/tasks/row_softmax/baseline.py"),
            "@nki.jit\ndef other(x): pass\n");
        const auto found = TaskDetector::detect(kernel, QStringLiteral("edited since"), tasks());
        QVERIFY(found);
        QCOMPARE(found->name, QStringLiteral("row_softmax"));
        QCOMPARE(QFileInfo(found->ref.value(QStringLiteral("dir")).toString()).canonicalFilePath(),
                 QFileInfo(m_dir.filePath(QStringLiteral("project/.accelopt/tasks/row_softmax")))
                     .canonicalFilePath());
        QVERIFY2(found->how.contains(QStringLiteral("project")), qPrintable(found->how));
        // An unrelated file of the same project is not taken for it.
        QVERIFY(
            !TaskDetector::detect(put(QStringLiteral("project/src/other.py")), QStringLiteral("x"), tasks()));
    }

    void aCopiedTaskFolderKeepsItsTaskJsonName()
    {
        // People know a task by its task.json name; a copy of the folder may be called anything (issue 32).
        put(QStringLiteral("elsewhere/silu_copy_v2/task.json"), R"({"name": "silu_wide"})");
        put(QStringLiteral("elsewhere/silu_copy_v2/reference.py"), "def forward(x):\n    return x\n");
        const QString kernel = put(QStringLiteral("elsewhere/silu_copy_v2/baseline.py"));
        const auto found = TaskDetector::detect(kernel, QString(), tasks());
        QVERIFY(found);
        QCOMPARE(found->name, QStringLiteral("silu_wide"));
        QCOMPARE(found->ref.value(QStringLiteral("dir")).toString(), QFileInfo(kernel).absolutePath());
        QString error;
        const auto sources = TaskSources::load(found->ref, tasks(), error);
        QVERIFY2(sources, qPrintable(error));
        QCOMPARE(sources->name, QStringLiteral("silu_wide"));
    }

    void leavesUnknownsToTheUser_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("source");
        QTest::newRow("a file anywhere")
            << QStringLiteral("loose/kernel.py") << QByteArray("def kernel(): pass\n");
        QTest::newRow("dataset kernel with no reference")
            << QStringLiteral("ds/kernels/unknown_nki_0.py") << QByteArray("def kernel(): pass\n");
        QTest::newRow("header naming a task we do not have")
            << QStringLiteral("loose/other.py")
            << (KernelExporter::headerBegin + QStringLiteral("\n# task:       nosuch\n") +
                KernelExporter::headerEnd + QStringLiteral("\n"))
                   .toUtf8();
        QTest::newRow("a header-like comment that is not ours")
            << QStringLiteral("loose/comment.py") << QByteArray("# task: silu\ndef kernel(): pass\n");
    }

    void leavesUnknownsToTheUser()
    {
        QFETCH(QString, file);
        QFETCH(QByteArray, source);
        QVERIFY(!TaskDetector::detect(put(file, source), QString::fromUtf8(source), tasks()));
    }
};

QTEST_GUILESS_MAIN(TestTaskDetector)
#include "tst_taskdetector.moc"
