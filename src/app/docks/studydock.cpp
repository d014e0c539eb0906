#include "studydock.h"

#include "appcontext.h"
#include "studyview.h"
#include "theme.h"

#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QHBoxLayout>
#include <QJsonObject>
#include <QLabel>
#include <QStackedWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace {
QString choiceText(const StudyState &s)
{
    QStringList arms;
    for (const ArmSpec &a : s.arms)
        arms << a.name;
    const QDateTime created = QDateTime::fromString(s.created, Qt::ISODate);
    return QObject::tr("%1 · %2 · %3 · arms %4 · %5")
        .arg(s.id,
             created.isValid() ? created.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")) : s.created,
             s.tasks.join(QStringLiteral(", ")), arms.join(QStringLiteral(", ")),
             s.finished ? QObject::tr("finished")
                        : QObject::tr("round %1 of %2").arg(s.round).arg(s.budget.slices));
}
} // namespace

StudyDock::StudyDock(AppContext *context, QWidget *parent)
    : QDockWidget(tr("Study"), parent), m_dir(StudyState::studiesDir(context->workspacePath()))
{
    setObjectName(QStringLiteral("StudyDock"));
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *top = new QHBoxLayout;
    auto *label = new QLabel(tr("St&udy:"), body);
    m_choice = new QComboBox(body);
    m_choice->setObjectName(QStringLiteral("studyChoice"));
    m_choice->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_choice->setMinimumContentsLength(30);
    m_choice->setPlaceholderText(tr("(no study yet)"));
    label->setBuddy(m_choice);
    top->addWidget(label);
    top->addWidget(m_choice, 1);
    layout->addLayout(top);
    m_problems = new QLabel(body);
    m_problems->setObjectName(QStringLiteral("studyProblems"));
    m_problems->setWordWrap(true);
    m_problems->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_problems->hide();
    layout->addWidget(m_problems);
    m_pages = new QStackedWidget(body);
    m_hint = new QLabel(
        tr("No study yet in %1. Compare search strategies on one budget with, e.g.: <code>accelopt study "
           "--task swiglu --budget-evals 40 --arm beam=beam --arm nomem=beam,memory=off --arm "
           "rs=sample,n=16 --repeats 3</code>")
            .arg(QDir::toNativeSeparators(m_dir).toHtmlEscaped()),
        m_pages);
    m_hint->setObjectName(QStringLiteral("studyHint"));
    m_hint->setWordWrap(true);
    m_hint->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_hint->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_view = new StudyView(m_pages);
    m_pages->addWidget(m_hint);
    m_pages->addWidget(m_view);
    layout->addWidget(m_pages, 1);
    setWidget(body);

    connect(m_view, &StudyView::openSessionRequested, this, &StudyDock::openSessionRequested);
    connect(m_choice, &QComboBox::currentIndexChanged, this, &StudyDock::showStudy);

    // A study's runner saves through a temporary file renamed over the old one, so the folder changes with
    // every save; a short pause lets the rename land and gathers a burst of saves into one read.
    m_watcher = new QFileSystemWatcher(this);
    m_settle = new QTimer(this);
    m_settle->setSingleShot(true);
    m_settle->setInterval(150);
    connect(m_settle, &QTimer::timeout, this, &StudyDock::refresh);
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, m_settle, qOverload<>(&QTimer::start));
    connect(m_watcher, &QFileSystemWatcher::fileChanged, m_settle, qOverload<>(&QTimer::start));
    refresh();
}

QString StudyDock::currentStudy() const
{
    const int i = m_choice->currentIndex();
    return i >= 0 && i < m_studies.size() ? m_studies.at(i).id : QString();
}

// The studies folder once it exists (its files come and go there), else the workspace's folder, where it
// will appear; the chosen study's file too, as an editor may rewrite it in place.
void StudyDock::watch()
{
    const QStringList old = m_watcher->files() + m_watcher->directories();
    if (!old.isEmpty())
        m_watcher->removePaths(old);
    QStringList paths;
    if (QFileInfo(m_dir).isDir())
        paths << m_dir;
    else if (const QString parent = QFileInfo(m_dir).absolutePath(); QFileInfo(parent).isDir())
        paths << parent;
    if (const QString id = currentStudy(); !id.isEmpty())
        paths << m_dir + u'/' + id + QStringLiteral(".json");
    if (!paths.isEmpty())
        m_watcher->addPaths(paths);
}

void StudyDock::refresh()
{
    QStringList problems;
    const QString chosen = currentStudy();
    m_studies = StudyState::loadAll(m_dir, &problems);
    {
        const QSignalBlocker block(m_choice);
        m_choice->clear();
        for (const StudyState &s : m_studies)
            m_choice->addItem(choiceText(s), s.id);
        // The study looked at stays chosen while newer ones appear; the newest at first.
        m_choice->setCurrentIndex(std::max(0, m_choice->findData(chosen)));
    }
    m_problems->setVisible(!problems.isEmpty());
    for (QString &p : problems)
        p = Theme::statusHtml(Theme::Status::Warning, p.toHtmlEscaped());
    m_problems->setText(problems.join(QStringLiteral("<br>")));
    showStudy(m_choice->currentIndex());
}

void StudyDock::showStudy(int index)
{
    if (index < 0 || index >= m_studies.size()) {
        m_pages->setCurrentWidget(m_hint);
        watch();
        return;
    }
    const StudyState &s = m_studies.at(index);
    // The same study saved again unchanged (a turn that only started): keep the view, its selection and
    // the chart as they are.
    if (m_view->study().id != s.id || m_view->study().toJson() != s.toJson())
        m_view->setStudy(s);
    m_pages->setCurrentWidget(m_view);
    watch();
}
