#include "common/loghub.h"
#include "editortabs.h"
#include "isolatedsettings.h"
#include "kerneleditor.h"
#include "mainwindow.h"
#include "scriptedprompts.h"
#include "theme.h"

#include <QDir>
#include <QImage>
#include <QSet>
#include <QTest>

// Grabs the window with an NKI kernel open, keeps the PNG in the build's test-artifacts folder for a person
// to look at, and checks that it shows a highlighted kernel rather than a blank or unstyled frame.
class TestScreenshot : public QObject
{
    Q_OBJECT
    IsolatedSettings m_settings;

    static int distinctColors(const QImage &image)
    {
        QSet<QRgb> colors;
        for (int y = 0; y < image.height(); y += 2)
            for (int x = 0; x < image.width(); x += 2)
                colors.insert(image.pixel(x, y));
        return int(colors.size());
    }

    static int pixelsNear(const QImage &image, QColor target)
    {
        int count = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                if (qAbs(c.red() - target.red()) + qAbs(c.green() - target.green()) +
                        qAbs(c.blue() - target.blue()) <
                    40)
                    ++count;
            }
        return count;
    }

    void capture(Theme::Kind kind, const QString &fileName, QColor keywordColor)
    {
        Theme::setCurrent(kind);
        MainWindow window(std::make_shared<ScriptedPrompts>());
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.openFile(QStringLiteral(ACCELOPT_TEST_FIXTURES "/kernels/softmax_rows.py")));
        QTest::qWait(200);

        const QImage shot = window.grab().toImage();
        const QString path = QDir(QStringLiteral(ACCELOPT_TEST_ARTIFACTS)).filePath(fileName);
        QVERIFY2(shot.save(path), qPrintable(path));
        qInfo("screenshot kept at %s", qPrintable(path));

        QVERIFY(shot.width() >= 1000 && shot.height() >= 600);
        QVERIFY2(distinctColors(shot) > 30, "the window looks blank");
        KernelEditor *editor = window.editors()->currentEditor();
        const QImage editorShot = editor->grab().toImage();
        // Keywords (import, def, for, return) are drawn in the theme's keyword colour: proof of highlighting.
        const int keywordPixels = pixelsNear(editorShot, keywordColor);
        QVERIFY2(keywordPixels > 50,
                 qPrintable(QStringLiteral("only %1 keyword-coloured pixels").arg(keywordPixels)));
    }

private Q_SLOTS:
    void initTestCase() { LogHub::install(); } // as main() does, so the Log dock shows what a user would see
    void lightThemeWindowWithKernel()
    {
        capture(Theme::Kind::Light, QStringLiteral("workbench-light.png"), QColor(0x0033b3));
    }
    void darkThemeWindowWithKernel()
    {
        capture(Theme::Kind::Dark, QStringLiteral("workbench-dark.png"), QColor(0x569cd6));
    }
};

QTEST_MAIN(TestScreenshot)
#include "tst_screenshot.moc"
