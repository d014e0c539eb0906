#include "model/taskcatalog.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

class TestTaskCatalog : public QObject
{
    Q_OBJECT

    static void put(const QString &path, const QByteArray &bytes)
    {
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
    }

private Q_SLOTS:
    void listsTasksAndTheirProblems()
    {
        QTemporaryDir dir;
        put(dir.filePath(QStringLiteral("add/task.json")),
            R"({"name": "add", "description": "elementwise add"})");
        put(dir.filePath(QStringLiteral("add/baseline.py")), "def kernel(a, b): pass\n");
        put(dir.filePath(QStringLiteral("add/baseline_current.py")), "import nki\n");
        put(dir.filePath(QStringLiteral("broken/task.json")), "{not json");
        put(dir.filePath(QStringLiteral("broken/baseline.py")), "def kernel(): pass\n");
        put(dir.filePath(QStringLiteral("nobase/task.json")), R"({"name": "nobase"})");
        put(dir.filePath(QStringLiteral("array/task.json")), "[1, 2]");
        put(dir.filePath(QStringLiteral("array/baseline.py")), "\n");
        QDir().mkpath(dir.filePath(QStringLiteral("__pycache__")));

        const QList<TaskCatalog::Entry> entries = TaskCatalog::scan(dir.path());
        QCOMPARE(entries.size(), 4);
        QCOMPARE(entries[0].name, QStringLiteral("add"));
        QCOMPARE(entries[0].description, QStringLiteral("elementwise add"));
        QVERIFY(entries[0].problem.isEmpty());
        QVERIFY(entries[0].kernelPath.endsWith(QStringLiteral("add/baseline.py")));
        QVERIFY(entries[0].currentKernelPath.endsWith(QStringLiteral("add/baseline_current.py")));

        QCOMPARE(entries[1].name, QStringLiteral("array"));
        QVERIFY(entries[1].problem.contains(QStringLiteral("JSON object")));
        QCOMPARE(entries[2].name, QStringLiteral("broken"));
        QVERIFY(entries[2].problem.contains(QStringLiteral("not valid JSON")));
        QVERIFY(!entries[2].kernelPath.isEmpty()); // the kernel can still be opened and mended
        QVERIFY(entries[2].currentKernelPath.isEmpty());
        QCOMPARE(entries[3].name, QStringLiteral("nobase"));
        QVERIFY(entries[3].problem.contains(QStringLiteral("baseline.py is missing")));
        QVERIFY(entries[3].kernelPath.isEmpty());
    }

    void missingFolderGivesNothing()
    {
        QVERIFY(TaskCatalog::scan(QStringLiteral("/nonexistent/tasks/dir")).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestTaskCatalog)
#include "tst_taskcatalog.moc"
