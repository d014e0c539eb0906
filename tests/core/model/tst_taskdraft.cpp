#include "model/taskcatalog.h"
#include "model/taskdraft.h"
#include "model/tasklocations.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

// The task a user makes from their own kernel: the CLI's input specs, the task.json it writes, and where
// tasks are found (real folders).
class TestTaskDraft : public QObject
{
    Q_OBJECT

    static TaskDraft softmax()
    {
        TaskDraft d;
        d.name = QStringLiteral("row_softmax");
        d.function = QStringLiteral("row_softmax");
        d.kernelSource = QStringLiteral("@nki.jit\ndef row_softmax(x):\n    pass\n");
        d.referenceSource = QStringLiteral("def forward(x):\n    return x\n");
        TaskDraft::Input in;
        QString error;
        if (!TaskDraft::parseInput(QStringLiteral("x=256x2048:float32"), in, error))
            qFatal("%s", qPrintable(error));
        d.inputs << in;
        return d;
    }

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void parsesInputSpecs_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QString>("said");
        QTest::newRow("full") << "x=256x2048:float32" << true << "";
        QTest::newRow("default dtype") << "w = 64 x 32" << true << "";
        QTest::newRow("one dimension") << "b=512:bfloat16" << true << "";
        QTest::newRow("no name") << "=256x2048" << false << "NAME=SHAPE";
        QTest::newRow("bad dimension") << "x=256xx2048" << false << "whole numbers";
        QTest::newRow("zero") << "x=0x4" << false << ">= 1";
        QTest::newRow("bad dtype") << "x=4x4:float128" << false << "unknown dtype";
        QTest::newRow("no shape") << "x" << false << "NAME=SHAPE";
    }

    void parsesInputSpecs()
    {
        QFETCH(QString, spec);
        QFETCH(bool, ok);
        QFETCH(QString, said);
        TaskDraft::Input in;
        QString error;
        QCOMPARE(TaskDraft::parseInput(spec, in, error), ok);
        if (!ok)
            QVERIFY2(error.contains(said), qPrintable(error));
    }

    void smallShapesAndValidation()
    {
        TaskDraft d = softmax();
        QString error;
        QVERIFY(d.applySmall(QStringLiteral("x=64x512"), error));
        QCOMPARE(d.inputs.first().smallShape, (QList<qint64>{64, 512}));
        QVERIFY(!d.applySmall(QStringLiteral("y=64x512"), error));
        QVERIFY2(error.contains(QStringLiteral("no --input named y")), qPrintable(error));
        QVERIFY(d.applySmall(QStringLiteral("x=64"), error));
        QVERIFY(!d.validate(error));
        QVERIFY2(error.contains(QStringLiteral("1 dimensions")), qPrintable(error));
        d.inputs.first().smallShape = {64, 512};
        QVERIFY2(d.validate(error), qPrintable(error));
        for (const QString &bad :
             {QStringLiteral(""), QStringLiteral("9lives"), QStringLiteral("a b"), QStringLiteral("../up")})
            QVERIFY2(!TaskDraft::validName(bad, error), qPrintable(bad));
        d.referenceSource.clear();
        QVERIFY(!d.validate(error));
        QVERIFY2(error.contains(QStringLiteral("reference is empty")), qPrintable(error));
    }

    void writesAHiddenDraftInTheShortFormat()
    {
        QTemporaryDir root;
        TaskDraft d = softmax();
        QString error;
        QVERIFY(d.applySmall(QStringLiteral("x=64x512"), error));
        d.relTol = 1e-4;
        d.kernelFile = root.filePath(QStringLiteral("src/row_softmax.py"));
        const QString tasks = root.filePath(QStringLiteral(".accelopt/tasks"));
        const QString draft = d.writeDraft(tasks, error);
        QVERIFY2(!draft.isEmpty(), qPrintable(error));
        QVERIFY(QFileInfo(draft).fileName().startsWith(QStringLiteral(".new-row_softmax-")));
        QFile f(QDir(draft).filePath(QStringLiteral("task.json")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(o.value(QStringLiteral("function")).toString(), QStringLiteral("row_softmax"));
        const QJsonObject in = o.value(QStringLiteral("inputs")).toArray().first().toObject();
        QCOMPARE(in.value(QStringLiteral("shape")).toArray(), (QJsonArray{256, 2048}));
        QCOMPARE(in.value(QStringLiteral("small_shape")).toArray(), (QJsonArray{64, 512}));
        QCOMPARE(o.value(QStringLiteral("rel_tol")).toDouble(), 1e-4);
        QCOMPARE(o.value(QStringLiteral("kernel_file")).toString(),
                 QStringLiteral("../../../src/row_softmax.py"));
        QVERIFY(QFileInfo::exists(QDir(draft).filePath(QStringLiteral("reference.py"))));
        QVERIFY(QFileInfo::exists(QDir(draft).filePath(QStringLiteral("baseline.py"))));
        // A hidden draft is no task: the catalog does not list it.
        QVERIFY(TaskCatalog::scan(tasks, QStringLiteral("project")).isEmpty());
    }

    void findsTasksNearestFirst()
    {
        QTemporaryDir root;
        const auto make = [](const QString &dir, const QString &name) {
            QDir().mkpath(QDir(dir).filePath(name));
            QFile f(QDir(dir).filePath(name + QStringLiteral("/task.json")));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QStringLiteral(R"({"name": "%1"})").arg(name).toUtf8());
            QFile b(QDir(dir).filePath(name + QStringLiteral("/baseline.py")));
            QVERIFY(b.open(QIODevice::WriteOnly));
        };
        const QString project = root.filePath(QStringLiteral("repo/.accelopt/tasks"));
        const QString shipped = root.filePath(QStringLiteral("shipped"));
        QDir().mkpath(root.filePath(QStringLiteral("repo/.git")));
        QDir().mkpath(root.filePath(QStringLiteral("repo/src/deep")));
        const QString file = root.filePath(QStringLiteral("repo/src/deep/k.py"));
        QCOMPARE(TaskLocations::projectTasksDir(file), QString());
        QCOMPARE(TaskLocations::newProjectTasksDir(file),
                 project); // the repository root, not beside the file
        make(project, QStringLiteral("mine"));
        make(project, QStringLiteral("silu"));
        make(shipped, QStringLiteral("silu"));
        QCOMPARE(QFileInfo(TaskLocations::projectTasksDir(file)).canonicalFilePath(),
                 QFileInfo(project).canonicalFilePath());
        const QList<TaskCatalog::Entry> all = TaskCatalog::scanAll(shipped, file);
        QCOMPARE(all.size(), 3);
        QCOMPARE(all.first().origin, QStringLiteral("project"));
        QCOMPARE(all.last().origin, QStringLiteral("shipped"));
        const auto silu = TaskCatalog::find(QStringLiteral("silu"), shipped, file);
        QVERIFY(silu);
        QCOMPARE(silu->origin, QStringLiteral("project")); // the nearest wins
        QVERIFY(silu->ref().contains(QStringLiteral("dir")));
        QVERIFY(TaskCatalog::find(QStringLiteral("silu"), shipped, QString())
                    ->ref()
                    .contains(QStringLiteral("name")));
        QVERIFY(!TaskCatalog::find(QStringLiteral("mine"), shipped,
                                   root.filePath(QStringLiteral("elsewhere.py"))));
    }
};

QTEST_GUILESS_MAIN(TestTaskDraft)
#include "tst_taskdraft.moc"
