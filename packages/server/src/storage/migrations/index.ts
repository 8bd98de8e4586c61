import type { Migration, MigrationProvider } from 'kysely';
import * as catalogAndKeys from './001-catalog-and-keys.ts';
import * as usersAndClients from './002-users-and-clients.ts';
import * as oauthGrants from './003-oauth-grants.ts';
import * as streaming from './004-streaming.ts';
import * as singleUseSignIn from './005-single-use-sign-in.ts';
import * as wholeCatalog from './006-whole-catalog.ts';
import * as searchIndex from './007-search-index.ts';
import * as operatorAccounts from './008-operator-accounts.ts';
import * as searchWordBounds from './009-search-word-bounds.ts';
import * as searchWalkByteOrder from './010-search-walk-byte-order.ts';
import * as songTemplates from './011-song-templates.ts';
import * as searchSegments from './012-search-segments.ts';
import * as songTemplatesRowid from './013-song-templates-rowid.ts';
import * as deploymentId from './014-deployment-id.ts';
import * as library from './015-library.ts';
import * as playlists from './016-playlists.ts';
import * as typedPlayContexts from './017-typed-play-contexts.ts';
import * as playlistTextOrderKeys from './018-playlist-text-order-keys.ts';
import * as video from './019-video.ts';
import * as videoStreams from './020-video-streams.ts';
import * as developerKeys from './021-developer-keys.ts';
import * as videoTitleTemplates from './022-video-title-templates.ts';

/**
 * Every migration, in order. Listed in code rather than read from a folder so
 * the set is fixed at build time and identical for every dialect.
 */
export const migrations: MigrationProvider = {
  async getMigrations(): Promise<Record<string, Migration>> {
    return {
      '001-catalog-and-keys': catalogAndKeys,
      '002-users-and-clients': usersAndClients,
      '003-oauth-grants': oauthGrants,
      '004-streaming': streaming,
      '005-single-use-sign-in': singleUseSignIn,
      '006-whole-catalog': wholeCatalog,
      '007-search-index': searchIndex,
      '008-operator-accounts': operatorAccounts,
      '009-search-word-bounds': searchWordBounds,
      '010-search-walk-byte-order': searchWalkByteOrder,
      '011-song-templates': songTemplates,
      '012-search-segments': searchSegments,
      '013-song-templates-rowid': songTemplatesRowid,
      '014-deployment-id': deploymentId,
      '015-library': library,
      '016-playlists': playlists,
      '017-typed-play-contexts': typedPlayContexts,
      '018-playlist-text-order-keys': playlistTextOrderKeys,
      '019-video': video,
      '020-video-streams': videoStreams,
      '021-developer-keys': developerKeys,
      '022-video-title-templates': videoTitleTemplates,
    };
  },
};
