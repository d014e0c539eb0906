#include "helptopics.h"

#include "common/datapaths.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace {
QString plain(QString text)
{
    return text.remove(u'&').remove(QStringLiteral("…")).trimmed();
}

void collect(const QMenu *menu, const QString &path, QList<QPair<QString, QString>> &out)
{
    for (const QAction *action : menu->actions()) {
        if (action->menu()) {
            collect(action->menu(), path + QStringLiteral(" › ") + plain(action->text()), out);
            continue;
        }
        QStringList keys;
        for (const QKeySequence &key : action->shortcuts())
            keys << key.toString(QKeySequence::NativeText);
        if (!keys.isEmpty())
            out.append(
                {path + QStringLiteral(" › ") + plain(action->text()), keys.join(QStringLiteral(", "))});
    }
}
} // namespace

QUrl HelpTopics::userGuideUrl()
{
    // Beside the data: the source tree's for a build, share/accelopt's for the package (CMakeLists.txt).
    return QUrl::fromLocalFile(QDir(DataPaths::dataRoot()).filePath(QStringLiteral("README.md")));
}

QList<QPair<QString, QString>> HelpTopics::shortcuts(const QMainWindow *window)
{
    QList<QPair<QString, QString>> out;
    for (const QAction *top : window->menuBar()->actions())
        if (top->menu())
            collect(top->menu(), plain(top->text()), out);
    // Keys that belong to a view rather than a menu.
    out.append({QObject::tr("Compare › Next / previous change"), QStringLiteral("F7, Shift+F7")});
    out.append({QObject::tr("Find bar › Close"), QStringLiteral("Esc")});
    out.append({QObject::tr("Memory dock › Edit, pin, delete"), QStringLiteral("F2, Ctrl+M, Del")});
    return out;
}

void HelpTopics::showShortcuts(QMainWindow *window)
{
    QDialog dialog(window);
    dialog.setWindowTitle(QObject::tr("Keyboard Shortcuts"));
    auto *layout = new QVBoxLayout(&dialog);
    auto *list = new QTreeWidget(&dialog);
    list->setObjectName(QStringLiteral("shortcutList"));
    list->setHeaderLabels({QObject::tr("Action"), QObject::tr("Keys")});
    list->setRootIsDecorated(false);
    list->setAlternatingRowColors(true);
    for (const auto &[action, keys] : shortcuts(window))
        new QTreeWidgetItem(list, {action, keys});
    list->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    layout->addWidget(list);
    auto *guide = new QLabel(
        QObject::tr("More in the <a href='%1'>user guide</a>.").arg(userGuideUrl().toString()), &dialog);
    guide->setOpenExternalLinks(true);
    layout->addWidget(guide);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(buttons);
    dialog.resize(560, 520);
    dialog.exec();
}
