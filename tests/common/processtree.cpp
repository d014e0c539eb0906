#include "processtree.h"

#include <QDir>
#include <QFile>
#include <QMultiMap>

namespace {
QMultiMap<pid_t, pid_t> parentToChildren()
{
    QMultiMap<pid_t, pid_t> children;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString &entry : entries) {
        bool numeric = false;
        const pid_t pid = entry.toInt(&numeric);
        if (!numeric)
            continue;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        // Fields after the command name, which may itself hold spaces and parentheses: state, ppid, ...
        const QByteArray text = stat.readAll();
        const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 1)
            children.insert(fields.at(1).toInt(), pid);
    }
    return children;
}
} // namespace

QList<pid_t> ProcessTree::children(pid_t parent)
{
    return parentToChildren().values(parent);
}

QList<pid_t> ProcessTree::descendants(pid_t root)
{
    const QMultiMap<pid_t, pid_t> children = parentToChildren();
    QList<pid_t> all, todo{root};
    while (!todo.isEmpty()) {
        const QList<pid_t> kids = children.values(todo.takeFirst());
        all += kids;
        todo += kids;
    }
    return all;
}
