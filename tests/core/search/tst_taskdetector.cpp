#include "export/kernelexporter.h"
#include "search/taskdetector.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

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
