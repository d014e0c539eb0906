#pragma once

// RAII owners for every libssh handle we hold, so an early return on an error path never
// leaks a session, channel, key or SFTP handle.
#include <libssh/libssh.h>
#include <libssh/sftp.h>

#include <memory>

struct SshSessionDeleter
{
    void operator()(ssh_session s) const
    {
        if (ssh_is_connected(s))
            ssh_disconnect(s);
        ssh_free(s);
    }
};
struct SshChannelDeleter
{
    void operator()(ssh_channel c) const
    {
        if (ssh_channel_is_open(c))
            ssh_channel_close(c);
        ssh_channel_free(c);
    }
};
struct SshKeyDeleter
{
    void operator()(ssh_key k) const { ssh_key_free(k); }
};
struct SftpSessionDeleter
{
    void operator()(sftp_session s) const { sftp_free(s); }
};
struct SftpFileDeleter
{
    void operator()(sftp_file f) const { sftp_close(f); }
};
struct SftpAttributesDeleter
{
    void operator()(sftp_attributes a) const { sftp_attributes_free(a); }
};
struct SshStringDeleter
{
    void operator()(char *p) const { ssh_string_free_char(p); }
};
struct SshHashDeleter
{
    void operator()(unsigned char *p) const { ssh_clean_pubkey_hash(&p); }
};

using SshSessionPtr = std::unique_ptr<ssh_session_struct, SshSessionDeleter>;
using SshChannelPtr = std::unique_ptr<ssh_channel_struct, SshChannelDeleter>;
using SshKeyPtr = std::unique_ptr<ssh_key_struct, SshKeyDeleter>;
using SftpSessionPtr = std::unique_ptr<sftp_session_struct, SftpSessionDeleter>;
using SftpFilePtr = std::unique_ptr<sftp_file_struct, SftpFileDeleter>;
using SftpAttributesPtr = std::unique_ptr<sftp_attributes_struct, SftpAttributesDeleter>;
using SshCharPtr = std::unique_ptr<char, SshStringDeleter>;
using SshHashPtr = std::unique_ptr<unsigned char, SshHashDeleter>;
