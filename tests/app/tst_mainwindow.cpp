#include "aboutdialog.h"
#include "applogging.h"
#include "common/loghub.h"
#include "common/recentfiles.h"
#include "editortabs.h"
#include "isolatedsettings.h"
#include "kerneleditor.h"
#include "launchoptions.h"
#include "logdock.h"
#include "logfiltermodel.h"
#include "logmodel.h"
#include "mainwindow.h"
#include "scriptedprompts.h"
#include "tasksdock.h"
#include "theme.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QMenu>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

class TestMainWindow : public QObject
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

private Q_SLOTS:
    void initTestCase() { LogHub::install(); }

    void layoutAndRecentFilesSurviveRestart()
    {
        const QString kernel = put(QStringLiteral("recent.py"), "def kernel():\n    pass\n");
        auto prompts = std::make_shared<ScriptedPrompts>();
        {
            MainWindow window(prompts);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            window.resize(1000, 700);
            window.addDockWidget(Qt::RightDockWidgetArea, window.logDock());
            window.tasksDock()->hide();
            QVERIFY(window.openFile(kernel));
            QVERIFY(window.close());
        }
        MainWindow again(prompts);
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QCOMPARE(again.size(), QSize(1000, 700));
        QCOMPARE(again.dockWidgetArea(again.logDock()), Qt::RightDockWidgetArea);
        QVERIFY(again.tasksDock()->isHidden());
        QVERIFY(again.logDock()->isVisible());

        Q_EMIT again.recentMenu()->aboutToShow();
        const QList<QAction *> actions = again.recentMenu()->actions();
        QVERIFY(!actions.isEmpty());
        QCOMPARE(actions.first()->data().toString(), QFileInfo(kernel).absoluteFilePath());
        actions.first()->trigger();
        QCOMPARE(again.editors()->count(), 1);
        QCOMPARE(again.editors()->currentEditor()->filePath(), QFileInfo(kernel).absoluteFilePath());
        QVERIFY(prompts->warnings.isEmpty());
    }

    void vanishedRecentFileIsReportedAndDropped()
    {
        const QString kernel = put(QStringLiteral("vanishing.py"), "x = 1\n");
        RecentFiles::add(kernel);
        QVERIFY(QFile::remove(kernel));
        auto prompts = std::make_shared<ScriptedPrompts>();
        MainWindow window(prompts);
        Q_EMIT window.recentMenu()->aboutToShow();
        window.recentMenu()->actions().first()->trigger();
        QCOMPARE(window.editors()->count(), 0);
        QCOMPARE(prompts->warnings.size(), 1);
        QVERIFY(prompts->warnings.first().contains(QStringLiteral("does not exist")));
        QVERIFY(!RecentFiles::load().contains(QFileInfo(kernel).absoluteFilePath()));
    }

    void closingWithUnsavedWorkCanBeCancelled()
    {
        auto prompts = std::make_shared<ScriptedPrompts>();
        MainWindow window(prompts);
        window.show();
        window.editors()->newKernel()->setText(QStringLiteral("unsaved = 1\n"));
        prompts->saveAnswers = {UserPrompts::SaveChoice::Cancel};
        QVERIFY(!window.close());
        QCOMPARE(window.editors()->count(), 1);
        QCOMPARE(prompts->saveQuestions.size(), 1);
        prompts->saveAnswers = {UserPrompts::SaveChoice::Discard};
        QVERIFY(window.close());
    }

    void tasksDockListsAndOpensTasks()
    {
        put(QStringLiteral("tasks/softmax/task.json"),
            R"({"name": "softmax", "description": "row softmax"})");
        const QString baseline =
            put(QStringLiteral("tasks/softmax/baseline.py"), "def kernel(x):\n    return x\n");
        put(QStringLiteral("tasks/bad/task.json"), "{");
        auto prompts = std::make_shared<ScriptedPrompts>();
        MainWindow window(prompts);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.tasksDock()->show();
        window.tasksDock()->setTasksDir(m_dir.filePath(QStringLiteral("tasks")));
        QTreeWidget *tree = window.tasksDock()->tree();
        QCOMPARE(tree->topLevelItemCount(), 2);
        QCOMPARE(tree->topLevelItem(1)->text(0), QStringLiteral("softmax"));
        QVERIFY(tree->topLevelItem(0)->text(1).contains(QStringLiteral("not valid JSON")));

        const QRect rect = tree->visualItemRect(tree->topLevelItem(1));
        // A real double click is press, release, then the double-click event.
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, rect.center());
        QTest::mouseDClick(tree->viewport(), Qt::LeftButton, {}, rect.center());
        QCOMPARE(window.editors()->count(), 1);
        QCOMPARE(window.editors()->currentEditor()->filePath(), QFileInfo(baseline).absoluteFilePath());
    }

    void droppedFilesOpen()
    {
        const QString a = put(QStringLiteral("drop_a.py"), "a = 1\n");
        const QString b = put(QStringLiteral("drop_b.py"), "b = 2\n");
        auto prompts = std::make_shared<ScriptedPrompts>();
        MainWindow window(prompts);
        window.show();
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(a)});
        // Qt delivers a drop only after the widget accepted the drag's enter event, as in a real drag.
        QDragEnterEvent enterWindow(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, {});
        QApplication::sendEvent(&window, &enterWindow);
        QVERIFY(enterWindow.isAccepted());
        QDropEvent onWindow(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, {});
        QApplication::sendEvent(&window, &onWindow);
        QCOMPARE(window.editors()->count(), 1);

        // Dropping onto an open editor opens the file too, rather than pasting its path as text.
        mime.setUrls({QUrl::fromLocalFile(b)});
        KernelEditor *editor = window.editors()->currentEditor();
        QDragEnterEvent enterEditor(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, {});
        QApplication::sendEvent(editor->viewport(), &enterEditor);
        QVERIFY(enterEditor.isAccepted());
        QDropEvent onEditor(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, {});
        QApplication::sendEvent(editor->viewport(), &onEditor);
        QCOMPARE(window.editors()->count(), 2);
        QCOMPARE(editor->text(), QStringLiteral("a = 1\n"));
    }

    void logDockShowsOwnMessagesFiltered()
    {
        MainWindow window(std::make_shared<ScriptedPrompts>());
        LogDock *dock = window.logDock();
        qCWarning(lcApp) << "a warning for the log dock";
        qCDebug(lcEditor) << "a debug line for the log dock";
        auto visibleMessages = [dock] {
            QStringList messages;
            for (int row = 0; row < dock->filter()->rowCount(); ++row)
                messages << dock->filter()->index(row, LogModel::Message).data().toString();
            return messages.join(u'\n');
        };
        QTRY_VERIFY(visibleMessages().contains(QStringLiteral("a warning for the log dock")));
        QVERIFY(!visibleMessages().contains(QStringLiteral("a debug line"))); // default: info and above
        // A second dock created while the records' signals are still queued must not show them twice.
        qCWarning(lcApp) << "exactly once";
        LogDock late;
        QTRY_COMPARE(late.filter()
                         ->match(late.filter()->index(0, LogModel::Message), Qt::DisplayRole,
                                 QStringLiteral("exactly once"), -1, Qt::MatchContains)
                         .size(),
                     1);
        QTest::qWait(50);
        QCOMPARE(late.filter()
                     ->match(late.filter()->index(0, LogModel::Message), Qt::DisplayRole,
                             QStringLiteral("exactly once"), -1, Qt::MatchContains)
                     .size(),
                 1);
        dock->levelBox()->setCurrentIndex(0);
        QVERIFY(visibleMessages().contains(QStringLiteral("a debug line")));
        const int category = dock->categoryBox()->findData(QStringLiteral("accelopt.app.editor"));
        QVERIFY(category > 0);
        dock->categoryBox()->setCurrentIndex(category);
        QVERIFY(!visibleMessages().contains(QStringLiteral("a warning for the log dock")));
        QVERIFY(visibleMessages().contains(QStringLiteral("a debug line")));
    }

    // --help-all used to fall through to opening the window (and failing without a display).
    void helpAllAnswersLikeHelp()
    {
        LaunchOptions options;
        QVERIFY(options.parse({QStringLiteral("accelopt-workbench"), QStringLiteral("--help-all")}));
        QVERIFY(options.wantsHelp());
        QVERIFY(options.helpText().contains(QStringLiteral("--session")));
    }

    void aboutListsLibraryVersions()
    {
        const QString all = AboutDialog::components().join(u'\n');
        QVERIFY2(all.contains(QStringLiteral("Qt 6.")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("QScintilla 2.")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("libssh 0.")), qPrintable(all));
        AboutDialog dialog;
        QVERIFY(dialog.findChild<QPlainTextEdit *>()->toPlainText().contains(QStringLiteral("libssh")));
    }

    void themeChoicePersists()
    {
        MainWindow window(std::make_shared<ScriptedPrompts>());
        QAction *dark = nullptr;
        for (QAction *action : window.findChildren<QAction *>())
            if (action->data().toString() == QStringLiteral("dark"))
                dark = action;
        QVERIFY(dark);
        dark->trigger();
        QCOMPARE(Theme::current(), Theme::Kind::Dark);
        QCOMPARE(Theme::loadSaved(), Theme::Kind::Dark);
        Theme::setCurrent(Theme::Kind::Light);
        Theme::save(Theme::Kind::Light);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
