#include "common/loghub.h"
#include "editorcommands.h"
#include "editortabs.h"
#include "findbar.h"
#include "helptopics.h"
#include "isolatedsettings.h"
#include "kerneleditor.h"
#include "mainwindow.h"
#include "memorydock.h"
#include "runcontroller.h"
#include "scriptedprompts.h"

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

// Issue 32, "edits like an editor": the keys a Qt Creator or Kate user reaches for, pressed on the real
// window.
class TestEditing : public QObject
{
    Q_OBJECT
    IsolatedSettings m_settings;
    QTemporaryDir m_dir;

    QString put(const QString &name, const QByteArray &bytes)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        f.write(bytes);
        return path;
    }

    static int selectedLine(KernelEditor *editor)
    {
        int lineFrom = -1, indexFrom = -1, lineTo = -1, indexTo = -1;
        editor->getSelection(&lineFrom, &indexFrom, &lineTo, &indexTo);
        return lineFrom;
    }

    struct Window
    {
        std::shared_ptr<ScriptedPrompts> prompts = std::make_shared<ScriptedPrompts>();
        MainWindow window{prompts};
        Window()
        {
            window.resize(1200, 800);
            window.show();
            if (!QTest::qWaitForWindowExposed(&window))
                qFatal("window not exposed");
        }
    };

private Q_SLOTS:
    void initTestCase() { LogHub::install(); }

    void ctrlFOpensTheFindBarWithTheSelection()
    {
        Window w;
        QVERIFY(w.window.openFile(put(QStringLiteral("find.py"), "alpha = 1\nbeta = alpha\n")));
        KernelEditor *editor = w.window.editors()->currentEditor();
        editor->setFocus();
        editor->setSelection(1, 7, 1, 12); // "alpha" on the second line
        FindBar *bar = w.window.editorCommands()->findBar();
        QVERIFY(!bar->isVisible());
        QTest::keyClick(editor, Qt::Key_F, Qt::ControlModifier);
        QVERIFY(bar->isVisible());
        QCOMPARE(bar->findEdit()->text(), QStringLiteral("alpha"));
        QVERIFY(bar->findEdit()->hasFocus());
        QCOMPARE(bar->countLabel()->text(), QStringLiteral("2 hits"));
        QVERIFY(!bar->replacing());
        // Escape closes the bar and gives the editor its focus back.
        QTest::keyClick(bar->findEdit(), Qt::Key_Escape);
        QVERIFY(!bar->isVisible());
        QVERIFY(editor->hasFocus());
    }

    void f3AndShiftF3WalkTheHitsAndWrap()
    {
        Window w;
        QVERIFY(w.window.openFile(put(QStringLiteral("walk.py"), "a = x\nb = x\nc = x\n")));
        KernelEditor *editor = w.window.editors()->currentEditor();
        editor->setFocus();
        editor->setCursorPosition(0, 0);
        QTest::keyClick(editor, Qt::Key_F, Qt::ControlModifier);
        FindBar *bar = w.window.editorCommands()->findBar();
        QTest::keyClicks(bar->findEdit(), QStringLiteral("x"));
        QCOMPARE(selectedLine(editor), 0); // found as typed
        QCOMPARE(editor->selectedText(), QStringLiteral("x"));
        QTest::keyClick(bar->findEdit(), Qt::Key_F3);
        QCOMPARE(selectedLine(editor), 1);
        // From the editor too: F3 belongs to the editor area, not only to the bar.
        editor->setFocus();
        QTest::keyClick(editor, Qt::Key_F3);
        QCOMPARE(selectedLine(editor), 2);
        QTest::keyClick(editor, Qt::Key_F3);
        QCOMPARE(selectedLine(editor), 0); // wrapped
        QTest::keyClick(editor, Qt::Key_F3, Qt::ShiftModifier);
        QCOMPARE(selectedLine(editor), 2); // back over the start
        QTest::keyClick(editor, Qt::Key_F3, Qt::ShiftModifier);
        QCOMPARE(selectedLine(editor), 1);
        // Enter in the field finds the next, as in every find bar.
        QTest::keyClick(bar->findEdit(), Qt::Key_Return);
        QCOMPARE(selectedLine(editor), 2);

        QTest::keyClicks(bar->findEdit(), QStringLiteral("yz"));
        QCOMPARE(bar->countLabel()->text(), QStringLiteral("no hits"));
    }

    void ctrlHReplacesOneAndAllAsOneUndoStep()
    {
        Window w;
        QVERIFY(
            w.window.openFile(put(QStringLiteral("replace.py"), "tile = 1\ntile = tile + 1\nTILE = 3\n")));
        KernelEditor *editor = w.window.editors()->currentEditor();
        editor->setFocus();
        editor->setCursorPosition(0, 0);
        QTest::keyClick(editor, Qt::Key_H, Qt::ControlModifier);
        FindBar *bar = w.window.editorCommands()->findBar();
        QVERIFY(bar->replacing());
        QTest::keyClicks(bar->findEdit(), QStringLiteral("tile"));
        QCOMPARE(bar->countLabel()->text(), QStringLiteral("4 hits")); // TILE too: case is ignored by default
        bar->caseButton()->click();
        QCOMPARE(bar->countLabel()->text(), QStringLiteral("3 hits"));
        bar->replaceEdit()->setText(QStringLiteral("block"));
        QVERIFY(bar->replaceCurrent()); // the hit found while typing
        QCOMPARE(editor->text(0), QStringLiteral("block = 1\n"));
        QCOMPARE(bar->replaceAll(), 2);
        QCOMPARE(editor->text(), QStringLiteral("block = 1\nblock = block + 1\nTILE = 3\n"));
        editor->undo();
        QCOMPARE(editor->text(), QStringLiteral("block = 1\ntile = tile + 1\nTILE = 3\n"));
    }

    void replaceIsRefusedInAReadOnlyTab()
    {
        Window w;
        QVERIFY(w.window.openFile(put(QStringLiteral("ro.py"), "x = 1\n")));
        KernelEditor *editor = w.window.editors()->currentEditor();
        editor->setReadOnly(true);
        w.window.editorCommands()->replaceAction()->trigger();
        FindBar *bar = w.window.editorCommands()->findBar();
        bar->findEdit()->setText(QStringLiteral("x"));
        bar->replaceEdit()->setText(QStringLiteral("y"));
        QCOMPARE(bar->replaceAll(), 0);
        QCOMPARE(editor->text(), QStringLiteral("x = 1\n"));
    }

    void ctrlGMovesTheCursorToTheLine()
    {
        Window w;
        QVERIFY(w.window.openFile(put(QStringLiteral("lines.py"), "1\n2\n3\n4\n5\n6\n")));
        KernelEditor *editor = w.window.editors()->currentEditor();
        editor->setFocus();
        w.prompts->numberAnswers = {5};
        QTest::keyClick(editor, Qt::Key_G, Qt::ControlModifier);
        int line = -1, index = -1;
        editor->getCursorPosition(&line, &index);
        QCOMPARE(line, 4);
        // Cancelled: the cursor stays.
        QTest::keyClick(editor, Qt::Key_G, Qt::ControlModifier);
        editor->getCursorPosition(&line, &index);
        QCOMPARE(line, 4);
    }

    void memoryDockKeepsItsOwnCtrlF()
    {
        Window w;
        QVERIFY(w.window.openFile(put(QStringLiteral("mem.py"), "x = 1\n")));
        MemoryDock *memory = w.window.memoryDock();
        memory->show();
        memory->raise();
        memory->ensureOpen();
        QWidget *list = nullptr; // anything of the dock's that takes the focus, but its search field
        for (QWidget *widget : memory->widget()->findChildren<QWidget *>())
            if (!list && widget->isVisible() && widget->isEnabled() &&
                (widget->focusPolicy() & Qt::TabFocus) && widget != memory->searchEdit())
                list = widget;
        QVERIFY(list);
        list->setFocus();
        QVERIFY(list->hasFocus());
        QTest::keyClick(list, Qt::Key_F, Qt::ControlModifier);
        QVERIFY(memory->searchEdit()->hasFocus());
        QVERIFY(!w.window.editorCommands()->findBar()->isVisible());
    }

    void stopHasAKeyAndHelpListsTheKeys()
    {
        Window w;
        QCOMPARE(w.window.run()->stopAction()->shortcut(), QKeySequence(Qt::SHIFT | Qt::Key_F5));
        {
            // The key reaches the action from the editor (a search enables it; here it is enabled by hand).
            QVERIFY(w.window.openFile(put(QStringLiteral("stop.py"), "x = 1\n")));
            QSignalSpy stops(w.window.run()->stopAction(), &QAction::triggered);
            w.window.run()->stopAction()->setEnabled(true);
            QTest::keyClick(w.window.editors()->currentEditor(), Qt::Key_F5, Qt::ShiftModifier);
            QCOMPARE(stops.count(), 1);
        }
        const QList<QPair<QString, QString>> keys = HelpTopics::shortcuts(&w.window);
        const auto has = [&keys](const QString &action, const QString &key) {
            for (const auto &[a, k] : keys)
                if (a.endsWith(action) && k.contains(key))
                    return true;
            return false;
        };
        QVERIFY(has(QStringLiteral("Edit › Find"),
                    QKeySequence(QKeySequence::Find).toString(QKeySequence::NativeText)));
        QVERIFY(has(QStringLiteral("Edit › Replace"), QStringLiteral("Ctrl+H")));
        QVERIFY(has(QStringLiteral("Edit › Find Next"), QStringLiteral("F3")));
        QVERIFY(has(QStringLiteral("Edit › Find Previous"), QStringLiteral("Shift+F3")));
        QVERIFY(has(QStringLiteral("Edit › Go to Line"), QStringLiteral("Ctrl+G")));
        QVERIFY(has(QStringLiteral("Run › Stop Search"), QStringLiteral("Shift+F5")));
        QVERIFY(has(QStringLiteral("Run › Benchmark"), QStringLiteral("F5")));
        const QUrl guide = HelpTopics::userGuideUrl();
        QVERIFY(guide.isLocalFile());
        QVERIFY2(QFile::exists(guide.toLocalFile()), qPrintable(guide.toString()));
        QVERIFY(guide.toLocalFile().endsWith(QStringLiteral("README.md")));
        QVERIFY(w.window.findChild<QAction *>(QStringLiteral("userGuideAction")));
        QVERIFY(w.window.findChild<QAction *>(QStringLiteral("shortcutsAction")));
    }

    void openTabsComeBackAfterARestart()
    {
        const QString first = put(QStringLiteral("first.py"), "a = 1\n");
        const QString second = put(QStringLiteral("second.py"), "b = 2\n");
        const QString gone = put(QStringLiteral("gone.py"), "c = 3\n");
        {
            Window w;
            QVERIFY(w.window.openFile(first));
            QVERIFY(w.window.openFile(gone));
            QVERIFY(w.window.openFile(second));
            w.window.editors()->newKernel(); // untitled: not a file, not kept
            w.window.editors()->setCurrentIndex(0);
            w.prompts->saveAnswers = {UserPrompts::SaveChoice::Discard};
            QVERIFY(w.window.close());
        }
        QVERIFY(QFile::remove(gone));
        Window again;
        QCOMPARE(again.window.editors()->count(), 0); // a window opens empty until asked, as tests need
        again.window.restoreOpenTabs();
        QCOMPARE(again.window.editors()->count(), 2);
        QCOMPARE(again.window.editors()->editorAt(0)->filePath(), QFileInfo(first).absoluteFilePath());
        QCOMPARE(again.window.editors()->editorAt(1)->filePath(), QFileInfo(second).absoluteFilePath());
        QCOMPARE(again.window.editors()->currentIndex(), 0);
        QVERIFY2(again.prompts->warnings.isEmpty(), qPrintable(again.prompts->warnings.join(u'\n')));
    }
};

QTEST_MAIN(TestEditing)
#include "tst_editing.moc"
