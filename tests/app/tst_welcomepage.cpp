#include "appcontext.h"
#include "common/recentfiles.h"
#include "editortabs.h"
#include "hostsdialog.h"
#include "isolatedsettings.h"
#include "kerneleditor.h"
#include "llm/llmconfig.h"
#include "mainwindow.h"
#include "modelsdialog.h"
#include "scriptedprompts.h"
#include "welcomepage.h"

#include <QApplication>
#include <QCommandLinkButton>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>

// The page a first start shows instead of an empty window: its ways in work, from the page alone and in the
// real window, and the window grabbed with it is kept for a person to look at.
class TestWelcomePage : public QObject
{
    Q_OBJECT
    IsolatedSettings m_settings;
    QTemporaryDir m_dir;

    QString put(const QString &relative, const QByteArray &bytes)
    {
        const QString path = m_dir.filePath(relative);
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        f.write(bytes);
        return path;
    }

    static QTreeWidgetItem *taskNamed(QTreeWidget *tree, const QString &name)
    {
        for (int i = 0; i < tree->topLevelItemCount(); ++i)
            if (tree->topLevelItem(i)->text(0) == name)
                return tree->topLevelItem(i);
        return nullptr;
    }

    // Clicks the button, which opens a modal dialog; notes the dialog's class and closes it.
    static QString dialogOpenedBy(QAbstractButton *button)
    {
        QString opened;
        QTimer poll;
        QObject::connect(&poll, &QTimer::timeout, [&] {
            if (QWidget *modal = QApplication::activeModalWidget()) {
                opened = QString::fromLatin1(modal->metaObject()->className());
                modal->close();
            }
        });
        poll.start(20);
        QTest::mouseClick(button, Qt::LeftButton);
        return opened;
    }

private Q_SLOTS:
    void initTestCase()
    {
        // Nothing a dialog or the page reads may come from the user's own files.
        qputenv("ACCELOPT_LLM_CONFIG", m_dir.filePath(QStringLiteral("llm.json")).toUtf8());
        qputenv("ACCELOPT_HOSTS_FILE", m_dir.filePath(QStringLiteral("hosts.json")).toUtf8());
        qputenv("ACCELOPT_NO_KEYCHAIN", "1");
    }

    void init() { RecentFiles::clear(); }

    void listsTasksAndRecentFilesAndAsksToOpenThem()
    {
        const QString baseline =
            put(QStringLiteral("tasks/softmax/baseline.py"), "def kernel(x):\n    return x\n");
        put(QStringLiteral("tasks/softmax/task.json"),
            R"({"name": "softmax", "description": "row softmax"})");
        put(QStringLiteral("tasks/broken/task.json"), "{");
        WelcomePage page;
        page.setTasksDir(m_dir.filePath(QStringLiteral("tasks")));
        page.resize(1000, 700);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QSignalSpy opened(&page, &WelcomePage::openFileRequested);

        QCOMPARE(page.tasks()->topLevelItemCount(), 2);
        QTreeWidgetItem *broken = taskNamed(page.tasks(), QStringLiteral("broken"));
        QVERIFY(broken && broken->isDisabled());
        QVERIFY(broken->text(1).contains(QStringLiteral("not valid JSON")));
        QTreeWidgetItem *softmax = taskNamed(page.tasks(), QStringLiteral("softmax"));
        QVERIFY(softmax && !softmax->isDisabled());
        QCOMPARE(softmax->text(1), QStringLiteral("row softmax"));
        QTest::mouseClick(page.tasks()->viewport(), Qt::LeftButton, {},
                          page.tasks()->visualItemRect(softmax).center());
        QCOMPARE(opened.size(), 1);
        QCOMPARE(opened.first().first().toString(), QFileInfo(baseline).absoluteFilePath());

        // No recent files: the section is not shown at all rather than empty.
        QVERIFY(page.recent()->isHidden());
        RecentFiles::add(baseline);
        page.refresh();
        QVERIFY(page.recent()->isVisible());
        QCOMPARE(page.recent()->topLevelItemCount(), 1);
        page.recent()->setCurrentItem(page.recent()->topLevelItem(0));
        QTest::keyClick(page.recent(), Qt::Key_Return);
        QCOMPARE(opened.size(), 2);
        QCOMPARE(opened.last().first().toString(), QFileInfo(baseline).absoluteFilePath());

        QSignalSpy models(&page, &WelcomePage::modelsRequested);
        QSignalSpy hosts(&page, &WelcomePage::hostsRequested);
        QTest::mouseClick(page.modelsButton(), Qt::LeftButton);
        QTest::mouseClick(page.hostsButton(), Qt::LeftButton);
        QCOMPARE(models.size(), 1);
        QCOMPARE(hosts.size(), 1);
    }

    // A project's tasks show while no tab is open: those above the recent files, before the shipped ones.
    void listsTheTasksOfRecentProjects()
    {
        const QString kernel =
            put(QStringLiteral("repo/src/row_softmax.py"), "@nki.jit\ndef row_softmax(x):\n    pass\n");
        put(QStringLiteral("repo/.accelopt/tasks/row_softmax/task.json"), R"({"name": "row_softmax"})");
        put(QStringLiteral("repo/.accelopt/tasks/row_softmax/baseline.py"),
            "@nki.jit\ndef row_softmax(x):\n    pass\n");
        put(QStringLiteral("shipped/silu/task.json"), R"({"name": "silu"})");
        put(QStringLiteral("shipped/silu/baseline.py"), "def kernel(x):\n    return x\n");
        WelcomePage page;
        page.setTasksDir(m_dir.filePath(QStringLiteral("shipped")));
        QVERIFY(!taskNamed(page.tasks(), QStringLiteral("row_softmax")));
        RecentFiles::add(kernel);
        page.refresh();
        QTreeWidgetItem *mine = taskNamed(page.tasks(), QStringLiteral("row_softmax"));
        QVERIFY(mine);
        QCOMPARE(page.tasks()->indexOfTopLevelItem(mine), 0);
        QVERIFY(taskNamed(page.tasks(), QStringLiteral("silu")));
    }

    void saysWhatIsSetUp()
    {
        AppContext context(Engine::Settings{}); // the default files, which this test's environment places
        WelcomePage page(&context);
        page.refresh();
        QTRY_COMPARE(page.modelsStatus()->text(), QStringLiteral("No model endpoint yet."));
        QTRY_VERIFY(page.hostsStatus()->text().contains(QStringLiteral("local")));

        LlmConfig config;
        Endpoint endpoint;
        endpoint.name = QStringLiteral("lab-vllm");
        endpoint.baseUrl = QStringLiteral("http://127.0.0.1:8000/v1");
        endpoint.model = QStringLiteral("some-model");
        config.endpoints << endpoint;
        QString error;
        QVERIFY2(config.save(LlmConfig::defaultPath(), &error), qPrintable(error));
        page.refresh();
        QTRY_VERIFY(page.modelsStatus()->text().contains(QStringLiteral("lab-vllm")));

        // A broken file is named, not hidden behind "nothing set up".
        put(QStringLiteral("llm.json"), "{ not json");
        page.refresh();
        QTRY_VERIFY(page.modelsStatus()->text().contains(QStringLiteral("not valid JSON")));
        QVERIFY(QFile::remove(m_dir.filePath(QStringLiteral("llm.json"))));
    }

    void windowShowsItWhileNoTabIsOpen()
    {
        MainWindow window(std::make_shared<ScriptedPrompts>());
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        WelcomePage *page = window.welcomePage();
        QVERIFY(page->isVisible());
        QVERIFY(!window.editors()->isVisible());

        // The shipped tasks, from where the window looks for them (the source tree in a build).
        QVERIFY(page->tasks()->topLevelItemCount() >= 10);
        QTreeWidgetItem *silu = taskNamed(page->tasks(), QStringLiteral("silu"));
        QVERIFY(silu);
        QTest::mouseClick(page->tasks()->viewport(), Qt::LeftButton, {},
                          page->tasks()->visualItemRect(silu).center());
        QCOMPARE(window.editors()->count(), 1);
        QVERIFY(window.editors()->isVisible());
        QVERIFY(!page->isVisible());
        QVERIFY(window.editors()->currentEditor()->filePath().endsWith(QStringLiteral("/silu/baseline.py")));

        // Closing the last tab brings it back, with the file among the recent ones.
        QVERIFY(window.editors()->closeEditor(0));
        QTRY_VERIFY(page->isVisible());
        QCOMPARE(page->recent()->topLevelItemCount(), 1);
        QVERIFY(page->recent()->topLevelItem(0)->toolTip(0).endsWith(QStringLiteral("silu/baseline.py")));

        QTest::mouseClick(page->newButton(), Qt::LeftButton);
        QCOMPARE(window.editors()->count(), 1);
        QVERIFY(window.editors()->currentEditor());
        QVERIFY(window.editors()->closeEditor(0));
    }

    void setUpButtonsOpenTheDialogs()
    {
        MainWindow window(std::make_shared<ScriptedPrompts>());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(dialogOpenedBy(window.welcomePage()->modelsButton()), QStringLiteral("ModelsDialog"));
        QCOMPARE(dialogOpenedBy(window.welcomePage()->hostsButton()), QStringLiteral("HostsDialog"));
        auto prompts = std::make_shared<ScriptedPrompts>();
        const QString kernel = put(QStringLiteral("mine.py"), "x = 1\n");
        prompts->openAnswers = {kernel};
        MainWindow withFile(prompts);
        withFile.show();
        QTest::mouseClick(withFile.welcomePage()->openButton(), Qt::LeftButton);
        QCOMPARE(withFile.editors()->count(), 1);
        QCOMPARE(withFile.editors()->currentEditor()->filePath(), QFileInfo(kernel).absoluteFilePath());
    }

    // On a 1280x800 screen the editor area beside the docks is narrow; with more room the actions go two a
    // row. Either way every text is whole: as high as its wrapped lines need, and inside the page. The first
    // start (no recent files) at 1600x900 is the screenshot docs/images/workbench-welcome.png shows.
    void screenshotShowsEverythingUnclipped_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("recent");
        QTest::addColumn<QString>("file");
        QTest::newRow("narrow") << QSize(1280, 800) << true << QStringLiteral("welcome-narrow.png");
        QTest::newRow("first start") << QSize(1600, 900) << false << QStringLiteral("welcome.png");
        QTest::newRow("wide") << QSize(1900, 1000) << true << QStringLiteral("welcome-wide.png");
    }

    void screenshotShowsEverythingUnclipped()
    {
        QFETCH(QSize, size);
        QFETCH(bool, recent);
        QFETCH(QString, file);
        if (recent)
            RecentFiles::add(QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline.py"));
        MainWindow window(std::make_shared<ScriptedPrompts>());
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTest::qWait(100);
        WelcomePage *page = window.welcomePage();
        for (QWidget *widget : page->findChildren<QWidget *>()) {
            if (!widget->isVisible() ||
                !(qobject_cast<QCommandLinkButton *>(widget) || qobject_cast<QLabel *>(widget)))
                continue;
            const QString what = QStringLiteral("%1 '%2'").arg(
                QString::fromLatin1(widget->metaObject()->className()), widget->property("text").toString());
            const int needed = widget->hasHeightForWidth() ? widget->heightForWidth(widget->width())
                                                           : widget->sizeHint().height();
            QVERIFY2(widget->height() >= needed, qPrintable(QStringLiteral("%1 is %2 px high, needs %3")
                                                                .arg(what)
                                                                .arg(widget->height())
                                                                .arg(needed)));
            const int right = widget->mapTo(page, QPoint(widget->width(), 0)).x();
            QVERIFY2(right <= page->width(), qPrintable(QStringLiteral("%1 ends at x %2, the page at %3")
                                                            .arg(what)
                                                            .arg(right)
                                                            .arg(page->width())));
        }
        const QString path = QDir(QStringLiteral(ACCELOPT_TEST_ARTIFACTS)).filePath(file);
        QVERIFY2(window.grab().save(path), qPrintable(path));
        qInfo("screenshot kept at %s", qPrintable(path));
    }
};

QTEST_MAIN(TestWelcomePage)
#include "tst_welcomepage.moc"
