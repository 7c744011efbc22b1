// juice's `client` entry: the inliner without `juice.juiceResources` (which fetches remote CSS and
// brings an HTTP stack). Same function, same options as the package's main entry.
declare module 'juice/client' {
  import juice from 'juice';
  export default juice;
}
